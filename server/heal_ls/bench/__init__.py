"""`heal-ls bench`: heal a suite of known bugs and report how many were fixed, and how fast."""
