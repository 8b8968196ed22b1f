"""What the editor suites do: point the SDK environment variables at the fake model server and
let make_proposer pick the provider; the answer for the prompt's function comes back."""

import pytest
from heal_ls.llm import make_proposer
from heal_ls.llm.retry import RetryPolicy
from helpers import fakemodel
from helpers.prompts import prompt_for

fake_model = fakemodel.fake_model  # the shared fixture
FIXED = "def remove(self, name, count=1):\n    return None\n"


def env_for(kind: str, server) -> dict[str, str]:
    if kind == "anthropic":
        return {"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": server.anthropic_url}
    return {"OPENAI_BASE_URL": server.openai_url}  # a local server: no key at all


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
@pytest.mark.parametrize("streamed", [False, True])
async def test_auto_provider_from_env_answers_the_asked_function(fake_model, kind, streamed):
    fake_model.functions = {"Inventory.remove": FIXED, "Inventory.count": "wrong one"}
    proposer = make_proposer("auto", env=env_for(kind, fake_model), retry=RetryPolicy(0))
    assert proposer.name == kind
    prompt, _ = prompt_for("inventory", "shop/inventory.py", "Inventory.remove")
    chunks: list[str] = []
    proposal = await proposer.propose(prompt, chunks.append if streamed else None)
    assert f"```python\n{FIXED}```" in proposal.text
    assert ("".join(chunks) == proposal.text) if streamed else not chunks
    (request,) = fake_model.requests
    assert request.wire == kind and request.stream == streamed
    assert request.model == proposer.model
