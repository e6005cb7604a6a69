from csvreport import by_region, load, render, summary

CSV = "region,amount\nnorth,10.5\nsouth,4\nnorth,1.5\n"


def test_load_parses_amounts():
    assert load(CSV)[1] == {"region": "south", "amount": 4.0}


def test_summary():
    assert summary(load(CSV)) == {"count": 3, "total": 16.0, "average": 16.0 / 3}


def test_by_region_sorted():
    assert by_region(load(CSV)) == {"north": 12.0, "south": 4.0}


def test_render():
    assert render(load(CSV)).splitlines() == [
        "sales: 3",
        "total: 16.00",
        "average: 5.33",
        "  north: 12.00",
        "  south: 4.00",
    ]
