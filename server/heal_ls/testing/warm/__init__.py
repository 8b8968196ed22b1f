"""The warm runner, heal-ls's side: start, feed and stop warm pytest servers."""
