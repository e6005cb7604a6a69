"""``ForumSite``: the forum's task templates, their oracle plans and their scoring.

Ten templates, half of them change the site (create a post, reply, edit the profile,
upvote, delete a comment) and half ask for a fact the agent must find (a post's author,
its number of comments, a forum's top post or post count, a user's location). A task is
drawn from the prepared database with the env's RNG only; ``score`` reads the episode's
database (and the answer). A change scores 1 only if it was made as asked and nothing
else in the whole database changed (``pages.nothing_else_changed``): a new post plus an
unrelated upvote, comment or profile edit scores 0.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from turngym.envs.web.sites.forum import data
from turngym.envs.web.sites.pages import (
    answer_matches,
    draw_task,
    expect_change,
    nothing_else_changed,
    pick,
    same_text,
)
from turngym.envs.web.tasks import Step, Task, WSGIApp

__all__ = ["ForumSite"]

_NEW_TITLE_OPENERS = (
    "Need opinions on my new",
    "Just tried a second-hand",
    "Budget ideas for a",
    "Photos of my weekend with the",
    "Anyone else obsessed with the",
    "Quick poll about the",
)
_NEW_BODIES = (
    "Sharing this in case it helps someone.",
    "Would love to hear your experience.",
    "Long time reader, first post here.",
    "Let me know what you think in the replies.",
    "I will post an update next week.",
)
_NEW_REPLIES = (
    "Thanks, this was really useful!",
    "I tried this last month and loved it.",
    "Could you share where you found it?",
    "Great write-up, bookmarked.",
    "I respectfully disagree, but nice post.",
    "Same experience here.",
)
_PROFILE_VALUES = {
    "bio": (
        "Amateur baker and weekend hiker.",
        "Learning something new every day.",
        "Coffee first, questions later.",
        "Collector of old maps.",
    ),
    "location": ("Vancouver, Canada", "Madrid, Spain", "Austin, TX", "Berlin, Germany"),
    "email": ("jordan.lee@fastmail.com", "jlee.forum@example.org", "jordan@leefamily.net"),
    "display_name": ("Jordan L.", "JL the Reader", "Jordan from Seattle"),
}
_PROFILE_LABELS = {
    "bio": "Bio",
    "location": "Location",
    "email": "Email",
    "display_name": "Display name",
}
_PROFILE_WORDS = {
    "bio": "bio",
    "location": "location",
    "email": "email address",
    "display_name": "display name",
}


def _open_post(title: str) -> tuple[Step, ...]:
    """Search for a post by its title and open it."""
    return (
        Step.fill("searchbox", "Search", title),
        Step.click("button", "Search"),
        Step.click("link", title),
    )


def _count(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> int:
    return int(conn.execute(sql, tuple(params)).fetchone()[0])


class ForumSite:
    """A Reddit-like forum: 10 forums, 300 posts, ~1,500 comments, 80 users.

    >>> site = ForumSite()
    >>> site.name, len(site.templates), "post_author" in site.templates
    ('forum-v1', 10, True)
    """

    name: str = "forum-v1"
    templates: tuple[str, ...] = (
        "create_post",
        "reply_to_post",
        "edit_profile",
        "upvote_post",
        "delete_comment",
        "post_author",
        "comment_count",
        "top_post",
        "user_location",
        "forum_post_count",
    )

    def build_database(self, path: Path) -> None:
        """Write the prepared forum database to ``path``."""
        data.build(path)

    def app(self, db_path: Path) -> WSGIApp:
        """The forum's WSGI app serving ``db_path``."""
        from turngym.envs.web.sites.forum.app import make_app  # werkzeug only when serving

        return make_app(db_path)

    def sample_task(
        self, rng: np.random.Generator, conn: sqlite3.Connection, template: str | None = None
    ) -> Task:
        """Draw a task from ``template`` (or a template drawn with ``rng``)."""
        return draw_task(self, rng, conn, template)

    def finished(self, task: Task, conn: sqlite3.Connection) -> bool:
        """Never: forum episodes end when the agent answers."""
        return False

    def score(self, task: Task, conn: sqlite3.Connection, answer: str | None) -> float:
        """1.0 if the goal holds and nothing else changed (or the answer is right), else 0.0."""
        conn.row_factory = sqlite3.Row
        goal = task.goal
        if "answers" in goal:
            return float(answer_matches(answer, goal["answers"]))
        if not nothing_else_changed(conn, goal):
            return 0.0
        check: Callable[[Mapping[str, Any], sqlite3.Connection], bool] = getattr(
            self, f"_check_{task.template}"
        )
        return float(check(goal, conn))

    # ----- drawing posts and users -------------------------------------------------------

    @staticmethod
    def _post(rng: np.random.Generator, conn: sqlite3.Connection, where: str = "1") -> sqlite3.Row:
        rows = conn.execute(
            "SELECT p.*, u.username, f.name AS forum FROM posts p JOIN users u ON u.id = p.user_id"
            f" JOIN forums f ON f.id = p.forum_id WHERE {where} ORDER BY p.id"
        ).fetchall()
        return pick(rng, rows)

    @staticmethod
    def _forum(rng: np.random.Generator, conn: sqlite3.Connection) -> str:
        return str(pick(rng, [r[0] for r in conn.execute("SELECT name FROM forums ORDER BY id")]))

    # ----- state-changing templates ------------------------------------------------------
    # Each goal names the rows its change may touch (``expect_change``); ``score`` checks
    # that the rest of the database is as it was, and ``_check_<template>`` those rows.

    def _task_create_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        forum = self._forum(rng, conn)
        topics = data.FORUMS[forum][1]
        title = f"{pick(rng, _NEW_TITLE_OPENERS)} {pick(rng, topics)}"
        body = pick(rng, _NEW_BODIES)
        last = _count(conn, "SELECT COALESCE(MAX(id), 0) FROM posts")
        # Posting also stamps the post with the time (posts.created) and records its
        # author's upvote (votes): the new post's rows are left to _check_create_post.
        new_rows = {"posts": ("id > ?", [last]), "votes": ("post_id > ?", [last])}
        return Task(
            "create_post",
            f'Create a post in the forum "{forum}" titled "{title}" with the body "{body}".',
            {
                "forum": forum,
                "title": title,
                "body": body,
                "last_post": last,
                **expect_change(conn, new_rows),
            },
            (
                Step.click("link", "Create post"),
                Step.select("combobox", "Forum", forum),
                Step.fill("textbox", "Title", title),
                Step.fill("textbox", "Body", body),
                Step.click("button", "Create post"),
                Step.answer("done"),
            ),
        )

    def _check_create_post(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        """One new post, the asked-for one, as posting leaves it (its author's upvote only)."""
        last = goal["last_post"]
        posts = conn.execute(
            "SELECT p.*, f.name AS forum FROM posts p JOIN forums f ON f.id = p.forum_id"
            " WHERE p.id > ?",
            (last,),
        ).fetchall()
        if len(posts) != 1:
            return False
        post = posts[0]
        votes = conn.execute("SELECT * FROM votes WHERE post_id > ?", (last,)).fetchall()
        return (
            post["forum"] == goal["forum"]
            and post["user_id"] == 1
            and same_text(post["title"], goal["title"])
            and same_text(post["body"], goal["body"])
            and post["score"] == 1
            and [tuple(v) for v in votes] == [(1, post["id"], 1)]
        )

    def _task_reply_to_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(rng, conn)
        text = pick(rng, _NEW_REPLIES)
        last = _count(conn, "SELECT COALESCE(MAX(id), 0) FROM comments")
        return Task(
            "reply_to_post",
            f'Reply to the post titled "{post["title"]}" with the comment "{text}".',
            {
                "post_id": post["id"],
                "text": text,
                "last_comment": last,
                # the new comment (stamped with the time it was made) is checked by itself
                **expect_change(conn, {"comments": ("id > ?", [last])}),
            },
            (
                *_open_post(post["title"]),
                Step.fill("textbox", "Reply to this post", text),
                Step.click("button", "Post reply"),
                Step.answer("done"),
            ),
        )

    def _check_reply_to_post(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        """One new comment: the agent's, on the post, saying the text."""
        rows = conn.execute(
            "SELECT * FROM comments WHERE id > ?", (goal["last_comment"],)
        ).fetchall()
        return (
            len(rows) == 1
            and rows[0]["post_id"] == goal["post_id"]
            and rows[0]["user_id"] == 1
            and same_text(rows[0]["body"], goal["text"])
        )

    def _task_edit_profile(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        key = pick(rng, tuple(_PROFILE_VALUES))
        me = conn.execute("SELECT * FROM users WHERE id = 1").fetchone()
        value = pick(rng, [v for v in _PROFILE_VALUES[key] if v != me[key]])
        return Task(
            "edit_profile",
            f'Change the {_PROFILE_WORDS[key]} on your profile to "{value}".',
            {
                "field": key,
                "value": value,
                "kept": {k: me[k] for k in me.keys() if k != key},  # noqa: SIM118
                **expect_change(conn, {"users": ("id = 1", [])}),
            },
            (
                Step.click("link", "Edit profile"),
                Step.fill("textbox", _PROFILE_LABELS[key], value),
                Step.click("button", "Save profile"),
                Step.answer("done"),
            ),
        )

    def _check_edit_profile(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        """The field holds the new value, the profile's other columns the old ones."""
        me = conn.execute("SELECT * FROM users WHERE id = 1").fetchone()
        return same_text(me[goal["field"]], goal["value"]) and all(
            me[k] == v for k, v in goal["kept"].items()
        )

    def _task_upvote_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(
            rng,
            conn,
            "p.user_id != 1 AND p.id NOT IN (SELECT post_id FROM votes WHERE user_id = 1)",
        )
        row = conn.execute("SELECT * FROM posts WHERE id = ?", (post["id"],)).fetchone()
        return Task(
            "upvote_post",
            f'Upvote the post titled "{post["title"]}".',
            {
                "post_id": post["id"],
                "score": post["score"],
                "kept": {k: row[k] for k in row.keys() if k != "score"},  # noqa: SIM118
                # an upvote adds the agent's vote and raises the post's score
                **expect_change(
                    conn,
                    {
                        "posts": ("id = ?", [post["id"]]),
                        "votes": ("user_id = 1 AND post_id = ?", [post["id"]]),
                    },
                ),
            },
            (*_open_post(post["title"]), Step.click("button", "Upvote"), Step.answer("done")),
        )

    def _check_upvote_post(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        """The agent's vote on the post is up, its score one higher, the rest of it as it was."""
        pid = goal["post_id"]
        vote = conn.execute(
            "SELECT value FROM votes WHERE user_id = 1 AND post_id = ?", (pid,)
        ).fetchone()
        row = conn.execute("SELECT * FROM posts WHERE id = ?", (pid,)).fetchone()
        return (
            bool(vote and vote["value"] == 1)
            and row is not None
            and row["score"] == goal["score"] + 1
            and all(row[k] == v for k, v in goal["kept"].items())
        )

    def _task_delete_comment(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        rows = conn.execute(
            "SELECT c.id, c.post_id, p.title FROM comments c JOIN posts p ON p.id = c.post_id"
            " WHERE c.user_id = 1 AND (SELECT COUNT(*) FROM comments d"
            " WHERE d.post_id = c.post_id AND d.user_id = 1) = 1 ORDER BY c.id"
        ).fetchall()
        row = pick(rng, rows)
        # Deleting a comment deletes the replies under it too (as on Reddit's own pages).
        thread = [
            r[0]
            for r in conn.execute(
                "WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL"
                " SELECT c.id FROM comments c JOIN sub ON c.parent_id = sub.id)"
                " SELECT id FROM sub ORDER BY id",
                (row["id"],),
            )
        ]
        where = f"id IN ({', '.join('?' * len(thread))})"
        return Task(
            "delete_comment",
            f'Delete your comment on the post titled "{row["title"]}".',
            {
                "comment_id": row["id"],
                "thread": thread,
                **expect_change(conn, {"comments": (where, thread)}),
            },
            (
                *_open_post(row["title"]),
                Step.click("button", "Delete comment"),
                Step.answer("done"),
            ),
        )

    def _check_delete_comment(self, goal: Mapping[str, Any], conn: sqlite3.Connection) -> bool:
        """The comment and the replies under it are gone."""
        thread = goal["thread"]
        where = f"id IN ({', '.join('?' * len(thread))})"
        return _count(conn, f"SELECT COUNT(*) FROM comments WHERE {where}", thread) == 0

    # ----- information templates ---------------------------------------------------------

    def _task_post_author(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(rng, conn, "p.user_id != 1")
        return Task(
            "post_author",
            f'Who wrote the post titled "{post["title"]}"? Answer with their username.',
            {"answers": [post["username"]]},
            (*_open_post(post["title"]), Step.answer(post["username"])),
        )

    def _task_comment_count(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        post = self._post(rng, conn)
        n = _count(conn, "SELECT COUNT(*) FROM comments WHERE post_id = ?", (post["id"],))
        return Task(
            "comment_count",
            f'How many comments (replies included) does the post titled "{post["title"]}" have?',
            {"answers": [str(n)]},
            (*_open_post(post["title"]), Step.answer(str(n))),
        )

    def _task_top_post(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        forum = self._forum(rng, conn)
        rows = conn.execute(
            "SELECT p.title, p.score FROM posts p JOIN forums f ON f.id = p.forum_id"
            " WHERE f.name = ? ORDER BY p.score DESC, p.id DESC",
            (forum,),
        ).fetchall()
        best = [r["title"] for r in rows if r["score"] == rows[0]["score"]]  # ties all count
        return Task(
            "top_post",
            f'What is the title of the highest-scoring post in the forum "{forum}"?',
            {"answers": best},
            (Step.click("link", forum), Step.click("link", "Top"), Step.answer(best[0])),
        )

    def _task_user_location(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        users = conn.execute(
            "SELECT username, location FROM users WHERE id != 1 ORDER BY id"
        ).fetchall()
        u = pick(rng, users)
        city = u["location"].split(",")[0]
        return Task(
            "user_location",
            f'Where does the user "{u["username"]}" live, according to their profile?',
            {"answers": [u["location"], city]},
            (
                Step.fill("searchbox", "Search", u["username"]),
                Step.click("button", "Search"),
                Step.click("link", u["username"]),
                Step.answer(u["location"]),
            ),
        )

    def _task_forum_post_count(self, rng: np.random.Generator, conn: sqlite3.Connection) -> Task:
        forum = self._forum(rng, conn)
        n = _count(
            conn,
            "SELECT COUNT(*) FROM posts p JOIN forums f ON f.id = p.forum_id WHERE f.name = ?",
            (forum,),
        )
        return Task(
            "forum_post_count",
            f'How many posts are there in the forum "{forum}"?',
            {"answers": [str(n)]},
            (Step.click("link", forum), Step.answer(str(n))),
        )
