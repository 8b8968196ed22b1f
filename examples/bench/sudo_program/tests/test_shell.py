from shell import program


def test_sudo_and_one_word():
    assert program("sudo reboot") == "reboot"


def test_plain_commands():
    assert program("ls -l") == "ls"
    assert program("git commit -m fix") == "git"


def test_sudo_with_arguments():
    assert program("sudo apt install vim") == "apt"
