"""The forum's SQLite schema and its deterministic generator (forums, users, posts, comments).

``build(path)`` writes the same content every time: one fixed NumPy seed draws 10
forums, 80 users (the agent is ``ME``), 300 posts with unique titles and about 1,500
threaded comments. Titles are unique so that a task can name a post by its title.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["ME", "SCHEMA", "build"]

ME = "jordan_lee"
"""The username the agent is logged in as (user id 1)."""

SCHEMA = """
CREATE TABLE users (
    id INTEGER PRIMARY KEY, username TEXT UNIQUE NOT NULL, display_name TEXT NOT NULL,
    bio TEXT NOT NULL, email TEXT NOT NULL, location TEXT NOT NULL, joined TEXT NOT NULL);
CREATE TABLE forums (
    id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, description TEXT NOT NULL);
CREATE TABLE posts (
    id INTEGER PRIMARY KEY, forum_id INTEGER NOT NULL REFERENCES forums(id),
    user_id INTEGER NOT NULL REFERENCES users(id), title TEXT NOT NULL, body TEXT NOT NULL,
    score INTEGER NOT NULL, created TEXT NOT NULL);
CREATE TABLE comments (
    id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL REFERENCES posts(id),
    parent_id INTEGER REFERENCES comments(id), user_id INTEGER NOT NULL REFERENCES users(id),
    body TEXT NOT NULL, score INTEGER NOT NULL, created TEXT NOT NULL);
CREATE TABLE votes (
    user_id INTEGER NOT NULL, post_id INTEGER NOT NULL, value INTEGER NOT NULL,
    PRIMARY KEY (user_id, post_id));
CREATE INDEX posts_forum ON posts(forum_id);
CREATE INDEX comments_post ON comments(post_id);
"""

_SEED = 20230725
_N_USERS, _N_POSTS, _N_COMMENTS = 80, 300, 1500

# forum name -> (description, things its posts are about)
FORUMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "books": (
        "Novels, non-fiction and what you are reading now",
        (
            "fantasy series",
            "audiobooks",
            "library haul",
            "poetry collection",
            "e-reader",
            "book club pick",
            "classic novels",
            "sci-fi trilogy",
            "reading journal",
            "used bookshop",
        ),
    ),
    "cooking": (
        "Recipes, techniques and kitchen disasters",
        (
            "cast iron pan",
            "sourdough starter",
            "knife set",
            "weeknight curry",
            "stock pot",
            "fermented hot sauce",
            "pasta machine",
            "meal prep",
            "spice rack",
            "rice cooker",
        ),
    ),
    "gardening": (
        "Vegetables, flowers and houseplants",
        (
            "tomato seedlings",
            "compost heap",
            "raised beds",
            "monstera",
            "rose bushes",
            "herb garden",
            "rain barrel",
            "potting soil",
            "fruit trees",
            "balcony garden",
        ),
    ),
    "cycling": (
        "Road, gravel, commuting and repairs",
        (
            "gravel bike",
            "bike lights",
            "chain lube",
            "commuter panniers",
            "clipless pedals",
            "tubeless tyres",
            "winter gloves",
            "bike fit",
            "century ride",
            "folding bike",
        ),
    ),
    "photography": (
        "Cameras, lenses and your best shots",
        (
            "prime lens",
            "film camera",
            "tripod",
            "night photography",
            "photo editing software",
            "street photography",
            "camera bag",
            "drone footage",
            "macro lens",
            "portrait lighting",
        ),
    ),
    "boardgames": (
        "Tabletop games of every kind",
        (
            "deck-building games",
            "game night",
            "card sleeves",
            "co-op campaign",
            "chess openings",
            "party games",
            "miniature painting",
            "two-player games",
            "game shelf",
            "dice tower",
        ),
    ),
    "diy": (
        "Home improvement and building things",
        (
            "cordless drill",
            "bathroom tiles",
            "workbench",
            "paint sprayer",
            "shelving unit",
            "deck stain",
            "kitchen cabinets",
            "stud finder",
            "wood glue",
            "garage workshop",
        ),
    ),
    "travel": (
        "Trips, tips and itineraries",
        (
            "carry-on backpack",
            "rail pass",
            "travel insurance",
            "hostel stay",
            "road trip",
            "packing cubes",
            "jet lag",
            "night train",
            "travel adapter",
            "hiking trail",
        ),
    ),
    "movies": (
        "Films old and new",
        (
            "horror sequel",
            "film score",
            "director's cut",
            "silent film",
            "animated feature",
            "home theatre",
            "documentary",
            "movie marathon",
            "indie cinema",
            "subtitles",
        ),
    ),
    "programming": (
        "Code, tools and careers",
        (
            "mechanical keyboard",
            "type checker",
            "code review",
            "side project",
            "regex",
            "unit tests",
            "text editor",
            "database index",
            "linked lists",
            "job interview",
        ),
    ),
}

_TITLES = (
    "Best {x} for beginners?",
    "My first {x}",
    "What {x} do you recommend?",
    "Thoughts on {x}",
    "{X} tips after ten years",
    "Finally finished my {x} project",
    "Worth it: {x}?",
    "Help with my {x}",
    "Unpopular opinion about {x}",
    "Where do you buy your {x}?",
    "Show off your {x}",
    "{X} mistakes I made",
    "How do you keep track of your {x}?",
    "Looking for {x} advice",
    "Weekly {x} thread",
)
_SENTENCES = (
    "I have been thinking about this for a while.",
    "Any advice is welcome.",
    "It took me three weekends but it was worth it.",
    "My budget is fairly tight.",
    "I read a few reviews and they disagree completely.",
    "Pictures in the comments.",
    "Curious what everyone else does.",
    "Last time it went badly, so I am asking first.",
    "A friend recommended it to me.",
    "I am not sure where else to ask this.",
    "Edit: thanks for all the replies!",
    "The local shop had no idea either.",
)
_REPLIES = (
    "Great question, I wondered the same.",
    "I had the same problem last year.",
    "Totally agree with this.",
    "Have you tried asking at the local club?",
    "This is the way.",
    "I would go for the cheaper option first.",
    "Thanks for sharing, this helped me a lot.",
    "Hard disagree, but fair point.",
    "Can you post an update later?",
    "That looks fantastic!",
    "Same here, no regrets.",
    "Check the wiki, it covers this.",
    "Patience is the answer, honestly.",
    "I did exactly this and it worked.",
    "Following for answers.",
)
_FIRST = (
    "Alex",
    "Sam",
    "Priya",
    "Chen",
    "Maria",
    "Tom",
    "Aisha",
    "Lukas",
    "Sofia",
    "Kenji",
    "Emma",
    "Omar",
    "Nina",
    "Diego",
    "Hannah",
    "Ravi",
    "Elena",
    "Marcus",
    "Yuki",
    "Grace",
)
_LAST = (
    "Nguyen",
    "Smith",
    "Patel",
    "Garcia",
    "Muller",
    "Kim",
    "Rossi",
    "Okafor",
    "Silva",
    "Novak",
    "Brown",
    "Haddad",
    "Jensen",
    "Lopez",
    "Tanaka",
    "Walsh",
)
_ADJ = (
    "quiet",
    "lucky",
    "brave",
    "sleepy",
    "rusty",
    "clever",
    "happy",
    "misty",
    "salty",
    "swift",
    "gentle",
    "bold",
    "cosmic",
    "dusty",
    "frosty",
    "golden",
)
_ANIMAL = (
    "fox",
    "otter",
    "heron",
    "badger",
    "lynx",
    "panda",
    "gecko",
    "walrus",
    "falcon",
    "moose",
    "koala",
    "raven",
    "bison",
    "newt",
)
_CITIES = (
    "Portland, OR",
    "Austin, TX",
    "Leeds, UK",
    "Toronto, Canada",
    "Lyon, France",
    "Denver, CO",
    "Melbourne, Australia",
    "Pune, India",
    "Porto, Portugal",
    "Chicago, IL",
    "Osaka, Japan",
    "Cape Town, South Africa",
    "Boston, MA",
    "Dublin, Ireland",
)
_BIOS = (
    "Weekend tinkerer and coffee snob.",
    "Here for the recipes.",
    "Dad, cyclist, amateur baker.",
    "Lurker since forever.",
    "Trying to read 50 books this year.",
    "I fix things, mostly.",
    "Plant parent of 40 houseplants.",
    "Software by day, film nerd by night.",
    "Always planning the next trip.",
    "Board game collector.",
    "",
)


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M")


def build(path: Path) -> None:
    """Write the forum database to ``path`` (same content on every call)."""
    rng = np.random.default_rng(_SEED)
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    start = datetime(2023, 1, 2, 8, 0)

    conn.executemany(
        "INSERT INTO forums (id, name, description) VALUES (?, ?, ?)",
        [(i + 1, name, desc) for i, (name, (desc, _)) in enumerate(FORUMS.items())],
    )

    handles = [f"{a}{b}" for a in _ADJ for b in _ANIMAL]
    picks = rng.choice(len(handles), size=_N_USERS - 1, replace=False)
    users = [
        (ME, "Jordan Lee", "Just here to learn and share.", "jordan.lee@example.com", "Seattle, WA")
    ]
    for k in picks:
        handle = f"{handles[k]}{int(rng.integers(1, 100))}"
        name = f"{_FIRST[rng.integers(len(_FIRST))]} {_LAST[rng.integers(len(_LAST))]}"
        users.append(
            (
                handle,
                name,
                str(rng.choice(_BIOS)),
                f"{handle}@example.com",
                str(rng.choice(_CITIES)),
            )
        )
    conn.executemany(
        "INSERT INTO users (id, username, display_name, bio, email, location, joined)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (i + 1, *u, _stamp(start - timedelta(days=int(rng.integers(30, 900)))))
            for i, u in enumerate(users)
        ],
    )

    # Each forum draws titles from its own (pattern, topic) pairs: unique site-wide.
    # Forums differ in size: 12 posts each plus a weighted share of the rest.
    share = rng.uniform(0.3, 1.7, size=len(FORUMS))
    sizes = rng.multinomial(_N_POSTS - 12 * len(FORUMS), share / share.sum()) + 12
    posts = []
    for f, (_, topics) in enumerate(FORUMS.values()):
        pairs = rng.choice(len(_TITLES) * len(topics), size=int(sizes[f]), replace=False)
        for k in pairs:
            topic = topics[k % len(topics)]
            title = _TITLES[k // len(topics)].format(x=topic, X=topic.capitalize())
            sentences = rng.choice(len(_SENTENCES), size=int(rng.integers(2, 5)), replace=False)
            body = " ".join(_SENTENCES[s] for s in sentences)
            # Heavy-tailed scores like a real forum: most posts few points, some many.
            score = int(rng.exponential(25.0)) - int(rng.integers(0, 5))
            posts.append((f + 1, title, body, score))
    order = rng.permutation(len(posts))  # interleave forums in time
    t = start
    rows = []
    for pid, k in enumerate(order, start=1):
        t += timedelta(minutes=int(rng.integers(20, 600)))
        forum_id, title, body, score = posts[k]
        author = 1 if pid % 37 == 0 else int(rng.integers(2, _N_USERS + 1))
        rows.append((pid, forum_id, author, title, body, score, _stamp(t)))
    conn.executemany(
        "INSERT INTO posts (id, forum_id, user_id, title, body, score, created)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    post_times = {r[0]: datetime.strptime(r[6], "%Y-%m-%d %H:%M") for r in rows}

    # Comment counts per post are skewed (a few busy threads); replies pick earlier comments.
    weights = rng.gamma(0.8, 1.0, size=_N_POSTS)
    post_of = rng.choice(_N_POSTS, size=_N_COMMENTS, p=weights / weights.sum()) + 1
    by_post: dict[int, list[int]] = {}
    comments: list[list[Any]] = []
    for cid, post_id in enumerate(sorted(int(p) for p in post_of), start=1):
        earlier = by_post.setdefault(post_id, [])
        parent = int(rng.choice(earlier)) if earlier and rng.random() < 0.4 else None
        author = int(rng.integers(2, _N_USERS + 1))
        when = post_times[post_id] + timedelta(minutes=int(rng.integers(5, 3000)))
        comments.append(
            [
                cid,
                post_id,
                parent,
                author,
                str(rng.choice(_REPLIES)),
                int(rng.integers(-2, 30)),
                _stamp(when),
            ]
        )
        earlier.append(cid)
    # The agent wrote a few top-level comments that nobody answered (delete tasks use them).
    answered = {c[2] for c in comments if c[2] is not None}
    seen: set[int] = set()
    for c in comments:
        if c[2] is None and c[0] not in answered and c[1] not in seen and rng.random() < 0.08:
            c[3] = 1
            seen.add(c[1])
    conn.executemany(
        "INSERT INTO comments (id, post_id, parent_id, user_id, body, score, created)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [tuple(c) for c in comments],
    )
    # The agent has already upvoted a handful of posts.
    voted = rng.choice(_N_POSTS, size=12, replace=False) + 1
    conn.executemany(
        "INSERT INTO votes (user_id, post_id, value) VALUES (1, ?, 1)", [(int(p),) for p in voted]
    )
    conn.commit()
    conn.close()
