from shell import program


def test_single_words():
    assert program("ls") == "ls"
    assert program("sudo") == "sudo"


def test_more_lines():
    assert program("  sudo   htop ") == "htop"
    assert program("sudo make install") == "make"
    assert program("echo sudo rm") == "echo"
