from heal_ls.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
