"""Does a ranking learned from the suspects' evidence generalise better than the hand weights?
A study (issue 22), in two steps.

`extract` replays each kept bug as `rank_replay.py` does (no test re-run), with the Ranker
instrumented: every rule that offered a suspect (`Ranker.add`'s caller and its score, not only
the strongest), the spectrum (function Ochiai, DStar, the likeliest block's Ochiai, blocks only
the failing test ran), where the traceback and the failing line placed it, the lifts appended to
its reason, its name; for the first TOP suspects of the current order, with which one is the
developer's fixed function (`bench/real.rank`'s rule). The injected bugs of `--suite localise`
are extracted alike (kept apart: never trained on, only scored).

`study` fits a linear listwise ranker (softmax over a bug's TOP suspects, the fixed one's
log-likelihood, L2; pure Python, full-batch Adam, fixed seed and steps: deterministic) and
measures it honestly, next to the current ranking:
  - leave-one-project-out over all bugs (each project's bugs ranked by a model that never saw
    the project);
  - blind rounds: trained on rounds < k, ranked on round k, k = 4..9 (as each round was first
    measured);
each twice: on the evidence features alone, and re-ranking (the current order's position kept
as a feature, so the model only re-weights the current top TOP).

    python benchmarks/rank_learn.py extract --store /work/lead/store9 /work/lead/cap/r9
    python benchmarks/rank_learn.py study [--features F] [--weights OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # rank_replay, a sibling script

FEATURES = Path(__file__).resolve().parents[1] / ".cache" / "rank_learn" / "features.json"
TOP = 30  # suspects kept a bug: the re-ranked head of the current order
SEED = 0


# ---------------------------------------------------------------- extraction


def instrumented_ranker():
    """A Ranker subclass that keeps every `add` (caller's method, the reason, the score) a key,
    and the last instance made (its spectrum caches and sets are read after `locate`)."""
    from heal_ls.locate import ranker as ranker_module

    class Recording(ranker_module.Ranker):
        last = None

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.offers: dict = defaultdict(dict)  # key -> {rule: best score}
            Recording.last = self

        def add(self, path, node, reason, score, line=None, spectrum=False):
            caller = sys._getframe(1)  # the rule: its method and the add's line in it
            rule = f"{caller.f_code.co_name}@{caller.f_lineno - caller.f_code.co_firstlineno}"
            HEADS.setdefault(rule, reason_head(reason))
            super().add(path, node, reason, score, line, spectrum)
            key = self.key(path, node)
            if key in self.suspects:  # not test code
                known = self.offers[key].get(rule)
                self.offers[key][rule] = score if known is None else max(known, score)

    return Recording


HEADS: dict[str, str] = {}  # each rule's first reason, its words before any detail


def reason_head(reason: str) -> str:
    """A reason's words up to its first detail (a quote, a number, a parenthesis, a path):
    "called on the failing line tests/t.py:7" -> "called on the failing line"."""
    words = []
    for word in reason.split(";")[0].split():
        if re.search(r"[0-9'\"(/:{]", word) or "." in word.strip("."):
            break
        words.append(word.lower())
        if len(words) == 6:
            break
    return " ".join(words) or "?"


SUFFIXES = {
    "named_test": "the failing test is named for it",
    "named_class": "the failing test's class is named for it",
    "writes_text": "the failing check shows text it writes",
    "changed": "changed since",
}


def suspect_rows(failure, run, located, recording, root: str) -> list[dict]:
    """The first TOP suspects of `located` as feature rows."""
    from heal_ls.locate.affinity import failing_test_words, in_tested_module, test_class_words
    from heal_ls.locate.affinity import words as name_words
    from heal_ls.locate.ranker import BUILDERS, CONSTRUCTORS
    from heal_ls.locate.spectrum import dstar_scores, failing_only, ochiai_scores

    ochiai = ochiai_scores(failure, run)
    dstar = dstar_scores(failure, run)
    only = failing_only(failure, run)
    blocks = recording.block_scores(failure, run) if failure.blocks is not None else {}
    own = recording.own_blocks(failure, run)
    tested = in_tested_module(failure)
    test_words, class_words = failing_test_words(failure), test_class_words(failure)
    from heal_ls.pysource.paths import is_workspace_file

    frames = [f for f in failure.frames if is_workspace_file(f.path, root)]
    code = [f for f in frames if f.path not in recording.tests]
    depth = {}  # key -> frames above the innermost code frame
    for hops, frame in enumerate(reversed(code)):
        node = recording.function_of(frame)
        if node is not None:
            depth.setdefault(recording.key(frame.path, node), hops)
    rows = []
    for position, s in enumerate(located.suspects[:TOP], 1):
        key = (os.path.normcase(os.path.abspath(s.path)), s.start_line)
        key = next((k for k in recording.suspects if recording.suspects[k] is s), key)
        at = f"{s.path}:{s.start_line}"
        short = s.qualname.rsplit(".", 1)[-1]
        offers = recording.offers.get(key, {})
        mine = name_words(s.qualname)
        rows.append(
            {
                "position": position,
                "score": s.score,
                "best_offer": max(offers.values(), default=s.score),
                "rules": offers,
                "suffixes": [n for n, text in SUFFIXES.items() if f"; {text}" in s.reason],
                "reason": s.reason,
                "qualname": s.qualname,
                "fixed": False,  # filled in by the caller, who knows the truth
                "ochiai": ochiai.get(at, 0.0),
                "dstar": dstar.get(at, 0.0),
                "failing_only": at in only,
                "block": blocks.get(at, (0.0, 0))[0],
                "own_blocks": own.get(at, 0),
                "on_path": key in recording.on_path,
                "called_on_line": key in recording.called_on_line,
                "checked": key in recording.checked,
                "by_spectrum": key in recording.by_spectrum,
                "depth": depth.get(key),
                "tested_module": tested(s),
                "builder": short in BUILDERS | CONSTRUCTORS,
                "private": short.startswith("_") and not short.startswith("__"),
                "dunder": short.startswith("__") and short.endswith("__"),
                "nested": ".<locals>." in s.qualname,
                "method": "." in s.qualname.replace(".<locals>.", "#"),
                "lines": s.end_line - s.start_line + 1,
                "test_words": len(mine & test_words),
                "class_words": len(mine & class_words),
            }
        )
    return rows


def ranked(failure, root: str, run, overlay=None) -> tuple[list, list[dict]]:
    """`locate`'s suspects for `failure` with the instrumented Ranker, and the kept head's
    rows (their `fixed` filled in by the caller)."""
    from heal_ls.locate import rank as rank_module

    Recording = instrumented_ranker()
    plain, rank_module.Ranker = rank_module.Ranker, Recording
    try:
        located = rank_module.locate(failure, root, run, overlay=overlay)
    finally:
        rank_module.Ranker = plain
    recording = Recording.last
    return located.suspects, suspect_rows(
        failure, run, located, recording, root
    ) if recording else []


def extract_real(stores: list[Path]) -> list[dict]:
    from heal_ls import payload
    from heal_ls.bench.corpus import load_bugs
    from heal_ls.bench.real import rank
    from rank_replay import Evidence

    found = []
    for bug in load_bugs():
        where = next((s / bug.id for s in stores if (s / bug.id).is_dir()), Path("-"))
        if not (where / "evidence.json").is_file():
            print(f"{bug.id}: not captured", file=sys.stderr)
            continue
        text = (where / "evidence.json").read_text(encoding="utf-8")
        document = payload.from_object(Evidence, json.loads(text))
        failures = sorted((f for f in document.failures if f.test), key=lambda f: f.test or "")
        entry = {"bug": bug.id, "project": bug.project, "round": bug.round, "suite": "real"}
        if not failures:
            found.append({**entry, "rank": None, "suspects": []})
            continue
        suspects, rows = ranked(failures[0], document.root, document.evidence)
        names = [(os.path.relpath(s.path, document.root), s.qualname) for s in suspects]
        for row, name in zip(rows, names):
            row["fixed"] = rank([name], bug.functions) == 1
        found.append({**entry, "rank": rank(names, bug.functions), "suspects": rows})
        print(f"{bug.id}: {found[-1]['rank']}", file=sys.stderr, flush=True)
    return found


def extract_localise(store: Path) -> list[dict]:
    from heal_ls import payload
    from heal_ls.bench import localise
    from rank_replay import MutantEvidence

    found = []
    for path in sorted((store / "localise").glob("*.json")):
        text = path.read_text(encoding="utf-8")
        document = payload.from_object(MutantEvidence, json.loads(text))
        failures = sorted(document.failures, key=lambda f: f.id)
        for n, failure in enumerate(failures[: localise.MAX_FAILURES_PER_BUG]):
            suspects, rows = ranked(failure, document.root, document.evidence, document.overlay)
            for row, suspect in zip(rows, suspects):
                row["fixed"] = localise.rank_of([suspect], document.target, document.qualname) == 1
            position = localise.rank_of(suspects, document.target, document.qualname)
            entry = {"bug": f"{path.stem}#{n}", "project": document.package, "round": 0}
            found.append({**entry, "suite": "localise", "rank": position, "suspects": rows})
    return found


# ---------------------------------------------------------------- features and model


def rule_names(bugs: list[dict]) -> list[str]:
    """The rules that offered a suspect in the real bugs' kept suspects, by name."""
    return sorted({r for b in bugs for s in b["suspects"] for r in s["rules"]})


def vector(s: dict, rules: list[str], rerank: bool) -> list[float]:
    """A suspect's features (all in 0..~1.5); with `rerank`, the current order's too."""
    depth = s["depth"]
    x = [
        s["ochiai"],
        s["dstar"] / 10.0,
        s["block"],
        float(s["failing_only"]),
        math.log1p(s["own_blocks"]),
        float(s["on_path"]),
        float(depth == 0),  # the innermost code frame: where it raised
        1.0 / (1 + depth) if depth is not None else 0.0,
        float(s["called_on_line"]),
        float(s["checked"]),
        float(s["by_spectrum"]),
        float(s["tested_module"]),
        float(s["builder"]),
        float(s["private"]),
        float(s["dunder"]),
        float(s["nested"]),
        float(s["method"]),
        math.log1p(s["lines"]) / 5.0,
        min(s["test_words"], 2) / 2.0,
        min(s["class_words"], 2) / 2.0,
    ]
    x += [float(name in s["suffixes"]) for name in SUFFIXES]
    x += [float(rule in s["rules"]) for rule in rules]
    if rerank:
        x += [s["score"], s["best_offer"], 1.0 / s["position"], math.log(s["position"]) / 3.5]
    return x


BASE_NAMES = [
    "ochiai", "dstar/10", "block ochiai", "function ran in failing tests only",
    "log(1+own blocks)", "on the traceback", "innermost code frame", "1/(1+frames above raise)",
    "called on the failing line", "checked on the failing line", "ranked by the spectrum",
    "in the tested module", "constructor/renderer", "private name", "dunder", "nested def",
    "method", "log size", "test-name words", "test-class words",
]  # fmt: skip
RERANK_NAMES = ["current score", "best rule score", "1/current position", "log current position"]


def feature_names(rules: list[str], rerank: bool) -> list[str]:
    names = (
        BASE_NAMES
        + [f"lift: {n}" for n in SUFFIXES]
        + [f"rule {r} ({HEADS.get(r, '?')})" for r in rules]
    )
    return names + (RERANK_NAMES if rerank else [])


@dataclass
class Encoded:
    """One bug's kept head as a matrix: a row of features a suspect, current order."""

    bug: str
    project: str
    round: int
    rank: int | None  # the current ranking's position of the fixed function
    x: Any  # numpy array (suspects, features)
    fixed: Any  # numpy bool array (suspects,)


def encode(bugs: list[dict], rules: list[str], rerank: bool) -> list[Encoded]:
    import numpy as np

    d = len(feature_names(rules, rerank))
    return [
        Encoded(
            b["bug"], b["project"], b["round"], b["rank"],
            np.array([vector(s, rules, rerank) for s in b["suspects"]]).reshape(-1, d),
            np.array([s["fixed"] for s in b["suspects"]], dtype=bool),
        )
        for b in bugs
    ]  # fmt: skip


class Listwise:
    """Linear scores, softmax over a bug's suspects, the fixed one's log-likelihood (several
    fixed: their summed probability), L2 on the weights; full-batch Adam, a fixed number of
    steps from zero weights (deterministic; 400 steps converge: the weights agree with 3,000's
    to three decimals)."""

    def __init__(self, l2: float = 0.01, steps: int = 400, rate: float = 0.05):
        self.l2, self.steps, self.rate = l2, steps, rate
        self.w: Any = None

    def fit(self, bugs: list[Encoded]) -> Listwise:
        import numpy as np

        bugs = [b for b in bugs if b.fixed.any() and not b.fixed.all()]  # nothing to learn
        d = bugs[0].x.shape[1]
        x = np.zeros((len(bugs), TOP, d))
        y = np.zeros((len(bugs), TOP), dtype=bool)
        kept = np.zeros((len(bugs), TOP), dtype=bool)
        for i, b in enumerate(bugs):
            n = len(b.fixed)
            x[i, :n], y[i, :n], kept[i, :n] = b.x, b.fixed, True
        w, m, v = np.zeros(d), np.zeros(d), np.zeros(d)
        for step in range(1, self.steps + 1):
            s = np.where(kept, x @ w, -np.inf)
            e = np.exp(s - s.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
            hit = np.where(y, e, 0.0)
            q = hit / hit.sum(axis=1, keepdims=True)
            g = np.einsum("bn,bnd->d", p - q, x) / len(bugs) + self.l2 * w
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            w = w - self.rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        self.w = w
        return self

    def position(self, bug: Encoded) -> int | None:
        """The fixed function's position once the kept head is re-ordered by the model (ties
        keep the current order); past the head, or unlisted, as it was."""
        import numpy as np

        if not bug.fixed.any():
            return bug.rank
        order = np.argsort(-(bug.x @ self.w), kind="stable")
        return int(np.flatnonzero(bug.fixed[order])[0]) + 1


def counts(ranks: list) -> tuple[int, int, int, int]:
    hit = lambda n: sum(1 for r in ranks if r is not None and r <= n)  # noqa: E731
    return hit(1), hit(3), sum(1 for r in ranks if r is not None), len(ranks)


def show(label: str, ranks: list, against: list | None = None) -> str:
    a, b, c, n = counts(ranks)
    line = f"{label:38} top-1 {a:>3}/{n}  top-3 {b:>3}/{n}  listed {c:>3}/{n}"
    if against is not None:
        a, b, c, n = counts(against)
        line += f"   current: {a:>3} / {b:>3} / {c:>3}"
    return line


def study(bugs: list[dict], localise_bugs: list[dict], l2: float, weights_out: Path | None):
    rules = rule_names(bugs)
    projects = sorted({b["project"] for b in bugs})
    print(f"{len(bugs)} bugs of {len(projects)} projects, {len(rules)} rules, top {TOP}, L2 {l2}")
    within = sum(1 for b in bugs if any(s["fixed"] for s in b["suspects"]))
    print(f"fixed function within the kept head: {within}/{len(bugs)}")
    print(show("current ranking (in-sample)", [b["rank"] for b in bugs]))
    for rerank in (False, True):
        kind = "re-rank (current order a feature)" if rerank else "evidence features only"
        print(f"\n== {kind}")
        data = encode(bugs, rules, rerank)
        lopo: dict[str, int | None] = {}
        for project in projects:
            model = Listwise(l2).fit([b for b in data if b.project != project])
            lopo.update((b.bug, model.position(b)) for b in data if b.project == project)
        print(show("leave-one-project-out", [lopo[b.bug] for b in data]))
        moved(data, lopo)
        blind = [0, 0, 0, 0]
        for k in range(4, 10):
            model = Listwise(l2).fit([b for b in data if b.round < k])
            test = [b for b in data if b.round == k]
            ranks, now = [model.position(b) for b in test], [b.rank for b in test]
            blind = [s + c for s, c in zip(blind, counts(ranks)[:2] + counts(now)[:2])]
            print(show(f"round {k}, trained on rounds < {k}", ranks, now))
        print(
            f"rounds 4-9: learned top-1 {blind[0]}, top-3 {blind[1]}; today's ranking "
            f"(in-sample) {blind[2]}, {blind[3]}; blind when first measured 92, 135"
        )
        full = Listwise(l2).fit(data)
        print(show("in-sample (trained on all)", [full.position(b) for b in data]))
        if localise_bugs:
            injected = encode(localise_bugs, rules, rerank)
            print(show("localise (trained on real bugs)", [full.position(b) for b in injected],
                       [b.rank for b in injected]))  # fmt: skip
        names = feature_names(rules, rerank)
        print("weights (trained on all), largest first:")
        for weight, name in sorted(zip(full.w, names), key=lambda p: -abs(p[0])):
            print(f"  {weight:+.3f}  {name}")
        if weights_out is not None and rerank:
            document = {"top": TOP, "l2": l2, "features": names, "weights": list(full.w)}
            weights_out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def moved(data: list[Encoded], ranks: dict) -> None:
    up = [b for b in data if better(ranks[b.bug], b.rank)]
    down = [b for b in data if better(b.rank, ranks[b.bug])]
    for word, which in (("up", up), ("down", down)):
        print(f"  {len(which)} {word} ({len({b.project for b in which})} projects): "
              + ", ".join(f"{b.bug} {b.rank}->{ranks[b.bug]}" for b in which))  # fmt: skip


def better(a, b) -> bool:
    return a is not None and (b is None or a < b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["extract", "study"])
    parser.add_argument("--store", nargs="+", type=Path, default=())
    parser.add_argument("--localise-store", type=Path, default=None)
    parser.add_argument("--features", type=Path, default=FEATURES)
    parser.add_argument("--weights", type=Path, default=None)
    parser.add_argument("--l2", type=float, default=0.01)
    args = parser.parse_args()
    if args.step == "extract":
        found = extract_real(list(args.store))
        if args.localise_store is not None:
            found += extract_localise(args.localise_store)
        args.features.parent.mkdir(parents=True, exist_ok=True)
        document = {"heads": HEADS, "bugs": found}
        args.features.write_text(json.dumps(document), encoding="utf-8")
        return 0
    document = json.loads(args.features.read_text(encoding="utf-8"))
    HEADS.update(document["heads"])
    found = document["bugs"]
    real = [b for b in found if b["suite"] == "real"]
    study(real, [b for b in found if b["suite"] == "localise"], args.l2, args.weights)
    return 0


if __name__ == "__main__":
    sys.exit(main())
