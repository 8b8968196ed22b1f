"""Known failures in the editor: diagnostics, code actions (and their index), hover."""
