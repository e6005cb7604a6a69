"""The forum's web pages: a Reddit-like WSGI app over the forum database.

Pages: the forum list (``/``), a forum's posts (``/f/<name>``, newest or top first), a
post with its comment tree (``/p/<id>``), user profiles (``/u/<name>``), search, and
forms to create a post, reply, vote, delete one's own comment and edit one's profile.
The agent is always logged in as ``data.ME`` (user id 1). Every change is a POST
answered by a redirect, and every piece of user text is escaped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from turngym.extras import needs_extra
from turngym.pyparse import AST_LOCK

with needs_extra("web", "a web env"):
    from werkzeug.exceptions import Forbidden, NotFound
    from werkzeug.routing import Map, Rule
    from werkzeug.utils import redirect
    from werkzeug.wrappers import Request, Response

from turngym.envs.web.sites.forum.data import ME
from turngym.envs.web.sites.pages import (
    PAGE_SIZE,
    SqliteApp,
    button_form,
    document,
    esc,
    field,
    pager,
    select_field,
)

__all__ = ["make_app"]

MY_ID = 1


def _header() -> str:
    return (
        '<a href="/">Forums</a><a href="/submit">Create post</a>'
        '<form action="/search" method="get" role="search" style="display:inline">'
        '<label for="q" style="display:inline">Search </label>'
        '<input type="search" id="q" name="q"> <button type="submit">Search</button></form>'
        f' <span style="margin-left:12px">Logged in as <a href="/u/{ME}">{ME}</a></span>'
        '<a href="/settings">Edit profile</a>'
    )


def _page(title: str, body: str, status: int = 200) -> Response:
    return Response(document(title, _header(), body), status=status, mimetype="text/html")


def _not_found(message: str) -> str:
    return document("Not found", _header(), f"<h1>Not found</h1><p>{esc(message)}</p>")


def _page_number(request: Request) -> int:
    value = request.args.get("page", "1")
    # isdecimal, not isdigit: int("²") raises; a page past 999,999 is past the last
    return max(int(value), 1) if value.isdecimal() and len(value) <= 6 else 1


def _now() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M")


def _post_rows(rows: list[sqlite3.Row]) -> str:
    items = "".join(
        f'<li><a href="/p/{r["id"]}">{esc(r["title"])}</a> <span class=muted>'
        f'{r["score"]} points · by <a href="/u/{esc(r["username"])}">{esc(r["username"])}</a>'
        f" in f/{esc(r['forum'])} · {esc(r['created'])} · {r['n_comments']} comments</span></li>"
        for r in rows
    )
    return f"<ul>{items}</ul>" if rows else "<p>No posts.</p>"


_POST_COLUMNS = (
    "SELECT p.id, p.title, p.score, p.created, u.username, f.name AS forum,"
    " (SELECT COUNT(*) FROM comments c WHERE c.post_id = p.id) AS n_comments"
    " FROM posts p JOIN users u ON u.id = p.user_id JOIN forums f ON f.id = p.forum_id"
)


def index(request: Request, conn: sqlite3.Connection) -> Response:
    """The list of forums with their post counts."""
    rows = conn.execute(
        "SELECT f.name, f.description, COUNT(p.id) AS n FROM forums f"
        " LEFT JOIN posts p ON p.forum_id = f.id GROUP BY f.id ORDER BY f.name"
    ).fetchall()
    items = "".join(
        f'<tr><td><a href="/f/{esc(r["name"])}">{esc(r["name"])}</a></td>'
        f"<td>{esc(r['description'])}</td><td>{r['n']} posts</td></tr>"
        for r in rows
    )
    body = (
        f"<h1>Forums</h1><table><tr><th>Forum</th><th>About</th><th>Posts</th></tr>{items}</table>"
    )
    return _page("Forums", body)


def forum(request: Request, conn: sqlite3.Connection, name: str) -> Response:
    """One forum's posts, newest (``sort=new``) or highest-scoring (``sort=top``) first."""
    row = conn.execute("SELECT id, description FROM forums WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise NotFound()
    sort = "top" if request.args.get("sort") == "top" else "new"
    order = "p.score DESC, p.id DESC" if sort == "top" else "p.created DESC, p.id DESC"
    total = conn.execute("SELECT COUNT(*) FROM posts WHERE forum_id = ?", (row["id"],)).fetchone()[
        0
    ]
    page = _page_number(request)
    rows = conn.execute(
        f"{_POST_COLUMNS} WHERE p.forum_id = ? ORDER BY {order} LIMIT ? OFFSET ?",
        (row["id"], PAGE_SIZE, (page - 1) * PAGE_SIZE),
    ).fetchall()
    pages = -(-total // PAGE_SIZE)
    body = (
        f"<h1>f/{esc(name)}</h1><p>{esc(row['description'])}</p><p>{total} posts · "
        f"Sorted by {sort} · Sort by: <a href='/f/{esc(name)}?sort=new'>New</a> "
        f"<a href='/f/{esc(name)}?sort=top'>Top</a> · "
        f"<a href='/submit?forum={esc(name)}'>Create post in f/{esc(name)}</a></p>"
        f"{_post_rows(rows)}{pager(f'/f/{name}', {'sort': sort}, page, pages)}"
    )
    return _page(f"f/{name}", body)


def _comment_tree(rows: list[sqlite3.Row]) -> str:
    children: dict[int | None, list[sqlite3.Row]] = {}
    for r in rows:
        children.setdefault(r["parent_id"], []).append(r)

    def render(parent: int | None) -> str:
        out = []
        for r in children.get(parent, []):
            delete = (
                button_form(f"/c/{r['id']}/delete", "Delete comment")
                if r["user_id"] == MY_ID
                else ""
            )
            out.append(
                f'<div class=comment id="c{r["id"]}"><p class=muted>'
                f'<a href="/u/{esc(r["username"])}">{esc(r["username"])}</a>'
                f" · {r['score']} points · {esc(r['created'])}</p><p>{esc(r['body'])}</p>"
                f'<a href="/c/{r["id"]}/reply">Reply</a> {delete}{render(r["id"])}</div>'
            )
        return "".join(out)

    return render(None)


def post(request: Request, conn: sqlite3.Connection, pid: int) -> Response:
    """A post, its vote buttons, the reply box and the comment tree."""
    row = conn.execute(
        "SELECT p.*, u.username, f.name AS forum FROM posts p JOIN users u ON u.id = p.user_id"
        " JOIN forums f ON f.id = p.forum_id WHERE p.id = ?",
        (pid,),
    ).fetchone()
    if row is None:
        raise NotFound()
    comments = conn.execute(
        "SELECT c.*, u.username FROM comments c JOIN users u ON u.id = c.user_id"
        " WHERE c.post_id = ? ORDER BY c.id",
        (pid,),
    ).fetchall()
    vote = conn.execute(
        "SELECT value FROM votes WHERE user_id = ? AND post_id = ?", (MY_ID, pid)
    ).fetchone()
    voted = {1: " You upvoted this post.", -1: " You downvoted this post."}.get(
        vote["value"] if vote else 0, ""
    )
    body = (
        f"<h1>{esc(row['title'])}</h1><p class=muted>in "
        f'<a href="/f/{esc(row["forum"])}">f/{esc(row["forum"])}</a> · posted by '
        f'<a href="/u/{esc(row["username"])}">{esc(row["username"])}</a>'
        f" · {esc(row['created'])}</p>"
        f"<p>{esc(row['body'])}</p><div>{row['score']} points "
        f"{button_form(f'/p/{pid}/vote', 'Upvote', {'value': 'up'})} "
        f"{button_form(f'/p/{pid}/vote', 'Downvote', {'value': 'down'})}{voted}</div>"
        f'<h2>{len(comments)} comments</h2><form method="post" action="/p/{pid}/comment">'
        f"{field('Reply to this post', 'body', kind='textarea')}"
        f"<br><button type=submit>Post reply</button></form>{_comment_tree(comments)}"
    )
    return _page(row["title"], body)


def vote(request: Request, conn: sqlite3.Connection, pid: int) -> Response:
    """Up- or down-vote a post; voting the same way again takes the vote back."""
    if conn.execute("SELECT 1 FROM posts WHERE id = ?", (pid,)).fetchone() is None:
        raise NotFound()
    want = {"up": 1, "down": -1}.get(request.form.get("value", ""), 0)
    row = conn.execute(
        "SELECT value FROM votes WHERE user_id = ? AND post_id = ?", (MY_ID, pid)
    ).fetchone()
    old = row["value"] if row else 0
    new = 0 if want == old else want
    conn.execute("DELETE FROM votes WHERE user_id = ? AND post_id = ?", (MY_ID, pid))
    if new:
        conn.execute(
            "INSERT INTO votes (user_id, post_id, value) VALUES (?, ?, ?)", (MY_ID, pid, new)
        )
    conn.execute("UPDATE posts SET score = score + ? WHERE id = ?", (new - old, pid))
    return redirect(f"/p/{pid}", 303)


def comment(request: Request, conn: sqlite3.Connection, pid: int) -> Response:
    """Add a top-level comment to a post."""
    if conn.execute("SELECT 1 FROM posts WHERE id = ?", (pid,)).fetchone() is None:
        raise NotFound()
    text = request.form.get("body", "").strip()
    if not text:
        return redirect(f"/p/{pid}", 303)
    cur = conn.execute(
        "INSERT INTO comments (post_id, parent_id, user_id, body, score, created)"
        " VALUES (?, NULL, ?, ?, 1, ?)",
        (pid, MY_ID, text, _now()),
    )
    return redirect(f"/p/{pid}#c{cur.lastrowid}", 303)


def reply(request: Request, conn: sqlite3.Connection, cid: int) -> Response:
    """Reply to a comment: the form (GET) and the new reply (POST)."""
    row = conn.execute(
        "SELECT c.*, u.username, p.title FROM comments c JOIN users u ON u.id = c.user_id"
        " JOIN posts p ON p.id = c.post_id WHERE c.id = ?",
        (cid,),
    ).fetchone()
    if row is None:
        raise NotFound()
    if request.method == "POST":
        text = request.form.get("body", "").strip()
        if text:
            cur = conn.execute(
                "INSERT INTO comments (post_id, parent_id, user_id, body, score, created)"
                " VALUES (?, ?, ?, ?, 1, ?)",
                (row["post_id"], cid, MY_ID, text, _now()),
            )
            return redirect(f"/p/{row['post_id']}#c{cur.lastrowid}", 303)
    body = (
        f'<h1>Reply to {esc(row["username"])}</h1><p>On <a href="/p/{row["post_id"]}">'
        f"{esc(row['title'])}</a></p><blockquote>{esc(row['body'])}</blockquote>"
        f'<form method="post">{field("Reply", "body", kind="textarea")}'
        "<br><button type=submit>Post reply</button></form>"
    )
    return _page("Reply", body)


def delete_comment(request: Request, conn: sqlite3.Connection, cid: int) -> Response:
    """Delete one of the agent's own comments, with the replies under it."""
    row = conn.execute("SELECT post_id, user_id FROM comments WHERE id = ?", (cid,)).fetchone()
    if row is None:
        raise NotFound()
    if row["user_id"] != MY_ID:
        raise Forbidden("You can only delete your own comments.")
    conn.execute(
        "WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL"
        " SELECT c.id FROM comments c JOIN sub ON c.parent_id = sub.id)"
        " DELETE FROM comments WHERE id IN (SELECT id FROM sub)",
        (cid,),
    )
    return redirect(f"/p/{row['post_id']}", 303)


def submit(request: Request, conn: sqlite3.Connection) -> Response:
    """Create a post: the form (GET) and the new post (POST)."""
    forums = [r["name"] for r in conn.execute("SELECT name FROM forums ORDER BY name")]
    values = {k: request.values.get(k, "").strip() for k in ("forum", "title", "body")}
    error = ""
    if request.method == "POST":
        row = conn.execute("SELECT id FROM forums WHERE name = ?", (values["forum"],)).fetchone()
        if row is None:
            error = "Choose a forum."
        elif not values["title"]:
            error = "A post needs a title."
        else:
            cur = conn.execute(
                "INSERT INTO posts (forum_id, user_id, title, body, score, created)"
                " VALUES (?, ?, ?, ?, 1, ?)",
                (row["id"], MY_ID, values["title"], values["body"], _now()),
            )
            conn.execute(
                "INSERT INTO votes (user_id, post_id, value) VALUES (?, ?, 1)",
                (MY_ID, cur.lastrowid),
            )
            return redirect(f"/p/{cur.lastrowid}", 303)
    options = [("", "Choose a forum"), *((f, f) for f in forums)]
    body = (
        "<h1>Create a post</h1>"
        + (f"<p class=error>{esc(error)}</p>" if error else "")
        + '<form method="post" action="/submit">'
        + select_field("Forum", "forum", options, values["forum"])
        + field("Title", "title", values["title"])
        + field("Body", "body", values["body"], kind="textarea")
        + "<br><button type=submit>Create post</button></form>"
    )
    return _page("Create a post", body, status=400 if error else 200)


def user(request: Request, conn: sqlite3.Connection, username: str) -> Response:
    """A user's profile and their posts."""
    row = conn.execute("SELECT * FROM users WHERE username = ?", (username,)).fetchone()
    if row is None:
        raise NotFound()
    n_posts = conn.execute("SELECT COUNT(*) FROM posts WHERE user_id = ?", (row["id"],)).fetchone()[
        0
    ]
    n_comments = conn.execute(
        "SELECT COUNT(*) FROM comments WHERE user_id = ?", (row["id"],)
    ).fetchone()[0]
    page = _page_number(request)
    rows = conn.execute(
        f"{_POST_COLUMNS} WHERE p.user_id = ? ORDER BY p.created DESC, p.id DESC LIMIT ? OFFSET ?",
        (row["id"], PAGE_SIZE, (page - 1) * PAGE_SIZE),
    ).fetchall()
    facts = "".join(
        f"<dt>{label}</dt><dd>{esc(row[key]) or '—'}</dd>"
        for label, key in (
            ("Username", "username"),
            ("Bio", "bio"),
            ("Location", "location"),
            ("Email", "email"),
            ("Joined", "joined"),
        )
    )
    body = (
        f"<h1>{esc(row['display_name'])}</h1><dl>{facts}</dl>"
        f"<p>{n_posts} posts · {n_comments} comments</p><h2>Posts</h2>{_post_rows(rows)}"
        f"{pager(f'/u/{username}', {}, page, -(-n_posts // PAGE_SIZE))}"
    )
    return _page(row["display_name"], body)


def settings(request: Request, conn: sqlite3.Connection) -> Response:
    """Edit the agent's own profile: the form (GET) and the change (POST)."""
    keys = ("display_name", "email", "bio", "location")
    row = conn.execute("SELECT * FROM users WHERE id = ?", (MY_ID,)).fetchone()
    values = {k: row[k] for k in keys}
    error = ""
    if request.method == "POST":
        values = {k: " ".join(request.form.get(k, "").split()) for k in keys}
        if not values["display_name"]:
            error = "The display name cannot be empty."
        elif "@" not in values["email"]:
            error = "Enter a valid email address."
        else:
            conn.execute(
                "UPDATE users SET display_name = ?, email = ?, bio = ?, location = ? WHERE id = ?",
                (*(values[k] for k in keys), MY_ID),
            )
            return redirect(f"/u/{ME}", 303)
    body = (
        "<h1>Edit profile</h1>"
        + (f"<p class=error>{esc(error)}</p>" if error else "")
        + '<form method="post" action="/settings">'
        + field("Display name", "display_name", values["display_name"])
        + field("Email", "email", values["email"], kind="email")
        + field("Bio", "bio", values["bio"], kind="textarea")
        + field("Location", "location", values["location"])
        + "<br><button type=submit>Save profile</button></form>"
    )
    return _page("Edit profile", body, status=400 if error else 200)


def search(request: Request, conn: sqlite3.Connection) -> Response:
    """Users and posts whose name or title contains the query."""
    q = " ".join(request.args.get("q", "").split())
    like = "%" + q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    users: list[Any] = []
    posts: list[Any] = []
    if q:
        users = conn.execute(
            "SELECT username, display_name FROM users WHERE username LIKE ? ESCAPE '\\'"
            " OR display_name LIKE ? ESCAPE '\\' ORDER BY username LIMIT ?",
            (like, like, PAGE_SIZE),
        ).fetchall()
        posts = conn.execute(
            f"{_POST_COLUMNS} WHERE p.title LIKE ? ESCAPE '\\' ORDER BY p.created DESC LIMIT ?",
            (like, PAGE_SIZE),
        ).fetchall()
    people = "".join(
        f'<li><a href="/u/{esc(u["username"])}">{esc(u["username"])}</a>'
        f" ({esc(u['display_name'])})</li>"
        for u in users
    )
    body = (
        f"<h1>Search results for “{esc(q)}”</h1><h2>Users</h2>"
        + (f"<ul>{people}</ul>" if users else "<p>No users.</p>")
        + f"<h2>Posts</h2>{_post_rows(posts)}"
    )
    return _page("Search", body)


def make_app(db_path: Path) -> SqliteApp:
    """The forum's WSGI app for the database at ``db_path``."""
    rules = [
        Rule("/", endpoint="index"),
        Rule("/f/<name>", endpoint="forum"),
        Rule("/p/<int:pid>", endpoint="post"),
        Rule("/p/<int:pid>/vote", endpoint="vote", methods=["POST"]),
        Rule("/p/<int:pid>/comment", endpoint="comment", methods=["POST"]),
        Rule("/c/<int:cid>/reply", endpoint="reply", methods=["GET", "POST"]),
        Rule("/c/<int:cid>/delete", endpoint="delete_comment", methods=["POST"]),
        Rule("/submit", endpoint="submit", methods=["GET", "POST"]),
        Rule("/u/<username>", endpoint="user"),
        Rule("/settings", endpoint="settings", methods=["GET", "POST"]),
        Rule("/search", endpoint="search"),
    ]
    with AST_LOCK:  # werkzeug compiles each rule with ast.parse (turngym/pyparse.py)
        url_map = Map(rules)
    handlers: dict[str, Callable[..., Response]] = {
        "index": index,
        "forum": forum,
        "post": post,
        "vote": vote,
        "comment": comment,
        "reply": reply,
        "delete_comment": delete_comment,
        "submit": submit,
        "user": user,
        "settings": settings,
        "search": search,
    }
    return SqliteApp(db_path, url_map, handlers, _not_found)
