"""Totals and the rendered text report."""


def summary(rows: list[dict]) -> dict:
    """Count, total and average amount."""
    total = sum(row["amount"] for row in rows)
    return {"count": len(rows), "total": total, "average": total / len(rows)}


def by_region(rows: list[dict]) -> dict[str, float]:
    """Total amount per region, regions sorted by name."""
    totals: dict[str, float] = {}
    for row in rows:
        totals[row["region"]] = totals.get(row["region"], 0.0) + row["amount"]
    return dict(sorted(totals.items()))


def render(rows: list[dict]) -> str:
    """The plain-text report."""
    stats = summary(rows)
    lines = [
        f"sales: {stats['count']}",
        f"total: {stats['total']:.2f}",
        f"average: {stats['average']:.2f}",
    ]
    lines += [f"  {region}: {amount:.2f}" for region, amount in by_region(rows).items()]
    return "\n".join(lines)
