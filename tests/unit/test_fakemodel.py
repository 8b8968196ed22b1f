"""The fake model server speaks both wire formats well enough for the real SDKs."""

import json
import subprocess
import sys
import time
from pathlib import Path

import anthropic
import openai
import pytest
from helpers import fakemodel
from helpers.fakemodel import FakeModelServer, as_markdown, pick_function_answer

fake_model = fakemodel.fake_model  # the shared fixture
FAKEMODEL = Path(fakemodel.__file__)
PROMPT = [{"role": "user", "content": "Fix this:\ndef add(a, b):\n    return a - b\n"}]


def anthropic_client(server):
    return anthropic.Anthropic(api_key="sk-ant-test", base_url=server.anthropic_url, max_retries=0)


def openai_client(server):
    return openai.OpenAI(api_key="sk-test", base_url=server.openai_url, max_retries=0)


def test_anthropic_json_and_stream(fake_model):
    fake_model.push("def add(a, b):\n    return a + b\n")
    fake_model.push("streamed answer text that is long enough to need several chunks")
    client = anthropic_client(fake_model)
    message = client.messages.create(model="m", max_tokens=100, messages=PROMPT)
    assert message.content[0].text == "def add(a, b):\n    return a + b\n"
    assert message.usage.input_tokens > 0 and message.usage.output_tokens > 0
    with client.messages.stream(model="m", max_tokens=100, messages=PROMPT) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    assert len(pieces) > 3
    assert "".join(pieces) == "streamed answer text that is long enough to need several chunks"
    assert final.usage.output_tokens > 1
    assert [r.stream for r in fake_model.requests] == [False, True]
    headers = fake_model.requests[0].headers
    assert "sk-ant-test" in headers.get("x-api-key", "") + headers.get("authorization", "")


def test_openai_json_and_stream_with_usage(fake_model):
    fake_model.push("plain answer")
    fake_model.push("a streamed answer in pieces")
    client = openai_client(fake_model)
    done = client.chat.completions.create(model="m", messages=PROMPT)
    assert done.choices[0].message.content == "plain answer"
    assert done.usage.prompt_tokens > 0
    chunks = list(
        client.chat.completions.create(
            model="m", messages=PROMPT, stream=True, stream_options={"include_usage": True}
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "a streamed answer in pieces"
    assert chunks[-1].usage.completion_tokens > 0
    assert fake_model.requests[1].path == "/v1/chat/completions"


@pytest.mark.parametrize("status", [401, 403, 404, 429, 500, 529])
def test_error_statuses_reach_both_sdks(fake_model, status):
    fake_model.push_error(status, "nope", headers={"retry-after": "7"})
    fake_model.push_error(status, "nope")
    with pytest.raises(anthropic.APIStatusError) as a_err:
        anthropic_client(fake_model).messages.create(model="m", max_tokens=5, messages=PROMPT)
    with pytest.raises(openai.APIStatusError) as o_err:
        openai_client(fake_model).chat.completions.create(model="m", messages=PROMPT)
    assert a_err.value.status_code == status and o_err.value.status_code == status
    assert a_err.value.response.headers["retry-after"] == "7"
    assert "nope" in str(a_err.value) and "nope" in str(o_err.value)


def test_unknown_model_is_404(fake_model):
    fake_model.models = {"known"}
    with pytest.raises(openai.NotFoundError):
        openai_client(fake_model).chat.completions.create(model="other", messages=PROMPT)


def test_functions_map_answers_the_function_the_prompt_asks_for():
    functions = {"add": "def add(a, b):\n    return a + b\n", "Stack.pop": "def pop(self): ..."}
    text = "Fix `Stack.pop`:\ndef pop(self):\n    pass\nIt calls:\ndef add(a, b)"
    assert pick_function_answer(text, functions) == "def pop(self): ..."
    assert pick_function_answer("def add(x, y):", functions).startswith("def add")
    assert pick_function_answer("nothing here", functions) is None
    assert as_markdown("def f(): pass").count("```") == 2
    assert as_markdown("```\nx\n```") == "```\nx\n```"


def test_slow_first_byte_trips_a_client_timeout(fake_model):
    fake_model.push("late", first_byte_delay=1.0)
    client = openai.OpenAI(api_key="k", base_url=fake_model.openai_url, max_retries=0, timeout=0.2)
    with pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=PROMPT)


def start_subprocess(tmp_path, answers: dict):
    answers_file, port_file = tmp_path / "answers.json", tmp_path / "port"
    answers_file.write_text(json.dumps(answers))
    cmd = [sys.executable, str(FAKEMODEL), "--port-file", str(port_file)]
    cmd += ["--answers-file", str(answers_file), "--requests-file", str(tmp_path / "req.jsonl")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not port_file.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    return proc, f"http://127.0.0.1:{port_file.read_text()}/v1"


def stop(proc):
    proc.terminate()
    proc.wait(timeout=5)
    assert proc.returncode == 0


def test_subprocess_mode_with_answers_file(tmp_path):
    proc, url = start_subprocess(tmp_path, {"add": "def add(a, b):\n    return a + b\n"})
    try:
        client = openai.OpenAI(api_key="k", base_url=url, max_retries=0, timeout=5)
        done = client.chat.completions.create(model="m", messages=PROMPT)
        assert "```python\ndef add(a, b):\n    return a + b\n```" in done.choices[0].message.content
        logged = json.loads((tmp_path / "req.jsonl").read_text().splitlines()[0])
        assert logged["body"]["messages"] == PROMPT
    finally:
        stop(proc)


def test_subprocess_mode_queue_of_errors_then_default(tmp_path):
    answers = {"queue": [{"status": 429, "error": "later"}, "first"], "default": "no idea"}
    proc, url = start_subprocess(tmp_path, answers)
    try:
        client = openai.OpenAI(api_key="k", base_url=url, max_retries=0, timeout=5)
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(model="m", messages=PROMPT)
        replies = [client.chat.completions.create(model="m", messages=PROMPT) for _ in range(2)]
        assert [r.choices[0].message.content for r in replies] == ["first", "no idea"]
    finally:
        stop(proc)


def test_server_records_an_early_hang_up():
    with FakeModelServer() as server:
        server.push("x" * 200, chunk_size=1, chunk_delay=0.01)
        client = openai.OpenAI(api_key="k", base_url=server.openai_url, max_retries=0)
        stream = client.chat.completions.create(model="m", messages=PROMPT, stream=True)
        next(iter(stream))
        stream.close()
        deadline = time.monotonic() + 5
        while not server.requests[0].closed_early and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.requests[0].closed_early
