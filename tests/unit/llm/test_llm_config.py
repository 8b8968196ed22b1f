"""make_proposer: provider choice, keys, endpoints and current default models."""

import typing

import anthropic
import pytest
from anthropic.resources.messages.messages import DEPRECATED_MODELS
from anthropic.types.model_param import ModelParam
from heal_ls.llm import DEFAULT_MODELS, ConfigError, choose_provider, make_proposer
from heal_ls.llm.anthropic import AnthropicProposer
from heal_ls.llm.base import PLACEHOLDER_KEY
from heal_ls.llm.openai_compat import OpenAIProposer
from openai.types.shared.chat_model import ChatModel

A_KEY, O_KEY = "sk-ant-aaaaaaaaaaaaaaaaaaaa", "sk-oooooooooooooooooooooo"


@pytest.mark.parametrize(
    "env, base_url, expected",
    [
        ({"ANTHROPIC_API_KEY": A_KEY, "OPENAI_API_KEY": O_KEY}, None, "anthropic"),
        ({"OPENAI_API_KEY": O_KEY}, None, "openai"),
        ({"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}, None, "openai"),
        ({"ANTHROPIC_API_KEY": A_KEY}, "http://127.0.0.1:11434/v1", "openai"),
        ({"ANTHROPIC_API_KEY": ""}, None, "local"),
        ({}, None, "local"),
    ],
)
def test_auto_picks_the_configured_provider(env, base_url, expected):
    assert choose_provider("auto", base_url, env) == expected


def test_explicit_provider_and_unknown_names():
    assert choose_provider("openai", None, {}) == "openai"
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        make_proposer("gemini", env={})


def test_anthropic_reads_key_and_base_url_from_env():
    env = {"ANTHROPIC_API_KEY": A_KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/"}
    proposer = make_proposer("auto", env=env)
    assert isinstance(proposer, AnthropicProposer)
    assert proposer.name == "anthropic" and proposer.model == DEFAULT_MODELS["anthropic"]
    assert proposer.api_key == A_KEY and proposer.base_url == "http://127.0.0.1:9/"
    assert A_KEY not in repr(proposer)


def test_openai_model_override_and_base_url_param_wins():
    env = {"OPENAI_API_KEY": O_KEY, "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
    proposer = make_proposer(
        "openai", model="qwen2.5-coder", base_url="http://127.0.0.1:2/v1", env=env
    )
    assert isinstance(proposer, OpenAIProposer)
    assert proposer.model == "qwen2.5-coder" and proposer.base_url == "http://127.0.0.1:2/v1"


def test_local_server_without_key_gets_a_placeholder():
    proposer = make_proposer("auto", base_url="http://127.0.0.1:11434/v1", env={})
    assert proposer.name == "openai" and proposer.api_key == PLACEHOLDER_KEY


@pytest.mark.parametrize(
    "provider, key_env", [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")]
)
def test_missing_key_is_a_config_error_naming_the_variable(provider, key_env):
    with pytest.raises(ConfigError, match=key_env):
        make_proposer(provider, env={})


def test_auto_without_keys_is_the_local_repairer():
    proposer = make_proposer("auto", env={})
    assert proposer.name == "local"
    assert callable(getattr(proposer, "candidates", None))


def test_default_models_are_current_in_the_installed_sdks():
    anthropic_models = typing.get_args(typing.get_args(ModelParam)[0])
    assert DEFAULT_MODELS["anthropic"] in anthropic_models
    assert DEFAULT_MODELS["anthropic"] not in DEPRECATED_MODELS
    assert DEFAULT_MODELS["openai"] in typing.get_args(ChatModel)
    assert anthropic.__version__  # the SDK these lists came from
