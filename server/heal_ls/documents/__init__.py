"""The command line's --json documents, each a dataclass written once: what `heal-ls check
--json` (check.py) and `heal-ls fix --json` (fix.py) print, made JSON by `payload.to_object`
in commands/, and read back by `payload.from_object` where another process's output is read
(the real-bug bench, bench/real.py). Below commands/ and bench/, so both import them."""
