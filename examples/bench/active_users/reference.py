"""Reference fix. target: users.py::active_names"""

def active_names(users):
    """Names of the users whose account is active, in order."""
    return [u["name"] for u in users if u["active"]]
