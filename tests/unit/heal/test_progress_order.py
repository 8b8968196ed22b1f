"""Progress counters never go back: candidates checked side by side finish in any order."""

from heal_ls.heal.events import HealEvent, never_back


def shown(events: list[HealEvent]) -> list[tuple[str, int, int]]:
    seen: list[HealEvent] = []
    forward = never_back(seen.append)
    for event in events:
        forward(event)
    return [(e.kind, e.attempt, e.total) for e in seen]


def test_a_batch_finishing_out_of_order_keeps_the_counter_moving_forward():
    events = [
        HealEvent("candidate", "local candidate 14", 14, 40, "local"),  # batch 13-14
        HealEvent("verify_end", "2 failed", 14, 40, "local"),
        HealEvent("rejected", "does not parse", 13, 40, "local"),  # the slower batch-mate
        HealEvent("candidate", "local candidate 16", 16, 40, "local"),
    ]
    assert [attempt for _, attempt, _ in shown(events)] == [14, 14, 14, 16]


def test_a_new_step_starts_its_own_count_and_plain_events_pass_through():
    events = [
        HealEvent("candidate", "local candidate 40", 40, 40, "local"),
        HealEvent("asking", "asking openai (gpt)"),  # no counter
        HealEvent("asking", "asking openai (gpt)", 1, 3),  # model rounds: a new total
        HealEvent("rejected", "not a function", 1, 3, "openai"),
    ]
    assert shown(events) == [
        ("candidate", 40, 40),
        ("asking", 0, 0),
        ("asking", 1, 3),
        ("rejected", 1, 3),
    ]
