"""Reference fix. target: shell.py::program"""

def program(line):
    """The program a shell line runs, past a leading sudo: "sudo apt install x" -> "apt"."""
    words = line.split()
    first = words[0]
    if first == "sudo" and len(words) >= 2:
        return words[1]
    return first
