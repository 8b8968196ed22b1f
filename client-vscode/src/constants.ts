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

// Names only the client uses (never on the wire; package.json contributes them).

const EXTENSION = 'heal-ls';

/** The palette commands; each is registered as `heal-ls.<name>` (paletteId), built only here. */
export const PALETTE_COMMANDS = [
  'healFailingTest',
  'runTests',
  'rerunFailed',
  'runScript',
  'debugTest',
  'loadReport',
  'setApiKey',
  'showLogs',
  'restart',
] as const;
export type PaletteCommand = (typeof PALETTE_COMMANDS)[number];

export function paletteId(name: PaletteCommand): string {
  return `${EXTENSION}.${name}`;
}

/** The Testing view's controller; its id is the `controllerId` of package.json's test menus. */
export const TEST_CONTROLLER = { id: EXTENSION, label: 'Heal' } as const;
