"""A feature module that fails to load is reported, and the others still register."""

from heal_ls.lsp import serve as server_module


def test_a_broken_feature_does_not_stop_the_others(monkeypatch):
    monkeypatch.setattr(server_module, "FEATURES", ("no_such_feature", *server_module.FEATURES))
    server = server_module.create_server()
    assert list(server.failed_features) == ["no_such_feature"]
    assert "ModuleNotFoundError" in server.failed_features["no_such_feature"]
    commands = set(server.protocol.fm.commands)
    assert {"heal.runTests", "heal.healFunction", "heal.debugTest"} <= commands
    assert "textDocument/codeAction" in server.protocol.fm.features
