// One UI session: one headless Chromium on one code-server, a workspace per stage (env PORT,
// SHOTS, STAGES: see ui_common.js runStages). Loading a workbench costs ~20 s of CPU, starting
// code-server and Chromium for each test cost as much again: the UI tests share them.
const { runStages } = require('./ui_common');
const { diagnostic, quickfix } = require('./ui_quickfix');
const { report, testing } = require('./ui_testing');

runStages({ diagnostic, quickfix, report, testing });
