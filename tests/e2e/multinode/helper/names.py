"""Name formatting."""


def initials(full_name):
    return "".join(part[0] + "." for part in full_name.split(" "))


def greeting(full_name):
    return f"Hello, {full_name}!"
