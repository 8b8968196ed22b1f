// One UI session: one headless Chromium on one code-server, a workspace per stage (env PORT,
// SHOTS, STAGES: see ui_common.js runStages). Each stage still loads a workbench (~20 s of CPU);
// the code-server, its extension install and Chromium are started once, not once per test
// (~15 s of CPU each: benchmarks/RESULTS.md).
const { runStages } = require('./ui_common');
const { diagnostic, quickfix } = require('./ui_quickfix');
const { report, testing } = require('./ui_testing');

runStages({ diagnostic, quickfix, report, testing });
