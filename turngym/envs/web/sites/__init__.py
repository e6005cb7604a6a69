"""The local web applications behind the web envs, one package per site (shop, forum, admin)."""
