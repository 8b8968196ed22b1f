from heal_ls.cli import entry

if __name__ == "__main__":
    entry()
