/**
 * Every name on the wire to the heal-ls server, defined once on this side; the Python twin is
 * server/heal_ls/lsp/protocol.py (tests/unit/test_protocol_names.py keeps the two equal).
 */
export const HEAL_FUNCTION = 'heal.healFunction';
export const HEAL_FAILING_TEST = 'heal.healFailingTest';
export const RUN_TESTS = 'heal.runTests';
export const RERUN_FAILED = 'heal.rerunFailed';
export const RUN_SCRIPT = 'heal.runScript';
export const DEBUG_TEST = 'heal.debugTest';
export const LOAD_REPORT = 'heal.loadReport';
export const STATUS = 'heal/status';
export const FAILURES = 'heal/failures';
