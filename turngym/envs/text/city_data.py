"""The bundled world-city table of ``GuessMyCity-v0`` and the words the oracle knows.

Facts are approximate but sensible: ``population`` is the urban area in millions
(rounded, kept clear of the band edges 1, 5 and 10 million), ``climate`` is a plain
word a traveller would use, and landmarks never spell out the city's or country's
name, so asking for a landmark does not hand over the answer in so many words.

The table itself is ``data/cities.tsv``, one city per line with tab-separated fields:
name, country, continent ("Europe/Asia" for a city in both), population (millions),
tags ("coastal", "capital", "south" for the southern hemisphere; "-" for none),
languages (";"-separated), landmarks (";"-separated, ``|`` adds a short alias),
climate, and aliases (";"-separated, "-" for none).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CITIES",
    "CLIMATES",
    "CONTINENTS",
    "COUNTRY_ALIASES",
    "DATA_FILE",
    "DEMONYMS",
    "EXTRA_COUNTRIES",
    "LANGUAGE_ALIASES",
    "REGIONS",
    "City",
    "population_band",
]

CONTINENTS = ("Africa", "Asia", "Europe", "North America", "Oceania", "South America")
CLIMATES = (
    "tropical",
    "subtropical",
    "desert",
    "mediterranean",
    "temperate",
    "continental",
    "cold",
)
_TAGS = frozenset({"coastal", "capital", "south"})


@dataclass(frozen=True)
class City:
    """One city of the table.

    Example:
        >>> paris = next(c for c in CITIES if c.name == "Paris")
        >>> paris.country, paris.capital, paris.coastal, paris.band
        ('France', True, False, 'over 10 million')

    """

    name: str
    country: str
    continents: tuple[str, ...]
    population: float
    """urban area, millions (approximate)"""
    coastal: bool
    capital: bool
    """the national capital (Cape Town: one of South Africa's three)"""
    languages: tuple[str, ...]
    landmarks: tuple[str, ...]
    landmark_aliases: tuple[tuple[str, ...], ...]
    """short forms per landmark (e.g. "Louvre" for "Louvre Museum")"""
    hemisphere: str
    """"northern" or "southern" """
    climate: str
    aliases: tuple[str, ...] = ()

    @property
    def band(self) -> str:
        """The population band the oracle reports."""
        return population_band(self.population)


def population_band(millions: float) -> str:
    """The band of a population given in millions.

    >>> population_band(0.4), population_band(2.1), population_band(6.7), population_band(37.4)
    ('under 1 million', '1-5 million', '5-10 million', 'over 10 million')
    """
    if millions < 1:
        return "under 1 million"
    if millions < 5:
        return "1-5 million"
    if millions < 10:
        return "5-10 million"
    return "over 10 million"


DATA_FILE = Path(__file__).resolve().parent / "data" / "cities.tsv"


def _split(text: str, sep: str = ";") -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(sep) if part.strip())


def _build(line: str) -> City:
    fields = line.rstrip("\n").split("\t")
    if len(fields) != 9:
        raise ValueError(f"{DATA_FILE}: expected 9 tab-separated fields in {line!r}")
    name, country, continent, pop, tags, langs, marks, climate, aliases = fields
    tags = "" if tags == "-" else tags
    unknown = set(tags.split()) - _TAGS
    if unknown or climate not in CLIMATES or any(c not in CONTINENTS for c in continent.split("/")):
        raise ValueError(f"{DATA_FILE}: bad row for {name}: {line!r}")
    landmarks = [_split(m, "|") for m in _split(marks)]
    return City(
        name=name,
        country=country,
        continents=tuple(continent.split("/")),
        population=float(pop),
        coastal="coastal" in tags.split(),
        capital="capital" in tags.split(),
        languages=_split(langs),
        landmarks=tuple(m[0] for m in landmarks),
        landmark_aliases=tuple(m[1:] for m in landmarks),
        hemisphere="southern" if "south" in tags.split() else "northern",
        climate=climate,
        aliases=() if aliases == "-" else _split(aliases),
    )


def _load() -> tuple[City, ...]:
    lines = DATA_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(_build(line) for line in lines if line.strip() and not line.startswith("#"))


CITIES: tuple[City, ...] = _load()
"""Every city of the game, in table order."""

COUNTRY_ALIASES: dict[str, tuple[str, ...]] = {
    "United States": (
        "USA",
        "US of A",
        "United States of America",
        "America",
        "the States",
        "U.S.A.",
    ),
    "United Kingdom": ("UK", "Britain", "Great Britain", "England", "U.K."),
    "Czech Republic": ("Czechia",),
    "Netherlands": ("Holland", "the Netherlands"),
    "South Korea": ("Republic of Korea",),
    "North Korea": ("DPRK",),
    "United Arab Emirates": ("UAE", "Emirates"),
    "DR Congo": ("Democratic Republic of the Congo", "DRC", "Congo", "Zaire"),
    "Ivory Coast": ("Cote d'Ivoire",),
    "Myanmar": ("Burma",),
    "Iran": ("Persia",),
    "Turkey": ("Turkiye",),
}
"""Other names of table countries (each country's own name is always known)."""

DEMONYMS: dict[str, tuple[str, ...]] = {
    "American": ("United States",),
    "British": ("United Kingdom",),
    "English": ("United Kingdom",),
    "French": ("France",),
    "German": ("Germany",),
    "Spanish": ("Spain",),
    "Italian": ("Italy",),
    "Dutch": ("Netherlands",),
    "Belgian": ("Belgium",),
    "Austrian": ("Austria",),
    "Swiss": ("Switzerland",),
    "Czech": ("Czech Republic",),
    "Hungarian": ("Hungary",),
    "Polish": ("Poland",),
    "Russian": ("Russia",),
    "Ukrainian": ("Ukraine",),
    "Swedish": ("Sweden",),
    "Norwegian": ("Norway",),
    "Danish": ("Denmark",),
    "Finnish": ("Finland",),
    "Icelandic": ("Iceland",),
    "Irish": ("Ireland",),
    "Portuguese": ("Portugal",),
    "Greek": ("Greece",),
    "Romanian": ("Romania",),
    "Bulgarian": ("Bulgaria",),
    "Serbian": ("Serbia",),
    "Latvian": ("Latvia",),
    "Estonian": ("Estonia",),
    "Turkish": ("Turkey",),
    "Japanese": ("Japan",),
    "Korean": ("South Korea", "North Korea"),
    "Chinese": ("China",),
    "Taiwanese": ("Taiwan",),
    "Singaporean": ("Singapore",),
    "Thai": ("Thailand",),
    "Malaysian": ("Malaysia",),
    "Indonesian": ("Indonesia",),
    "Filipino": ("Philippines",),
    "Vietnamese": ("Vietnam",),
    "Cambodian": ("Cambodia",),
    "Burmese": ("Myanmar",),
    "Indian": ("India",),
    "Pakistani": ("Pakistan",),
    "Bangladeshi": ("Bangladesh",),
    "Nepali": ("Nepal",),
    "Nepalese": ("Nepal",),
    "Iranian": ("Iran",),
    "Persian": ("Iran",),
    "Iraqi": ("Iraq",),
    "Saudi": ("Saudi Arabia",),
    "Emirati": ("United Arab Emirates",),
    "Qatari": ("Qatar",),
    "Israeli": ("Israel",),
    "Lebanese": ("Lebanon",),
    "Jordanian": ("Jordan",),
    "Uzbek": ("Uzbekistan",),
    "Kazakh": ("Kazakhstan",),
    "Mongolian": ("Mongolia",),
    "Egyptian": ("Egypt",),
    "Nigerian": ("Nigeria",),
    "Ghanaian": ("Ghana",),
    "Senegalese": ("Senegal",),
    "Ivorian": ("Ivory Coast",),
    "Moroccan": ("Morocco",),
    "Tunisian": ("Tunisia",),
    "Algerian": ("Algeria",),
    "Sudanese": ("Sudan",),
    "Ethiopian": ("Ethiopia",),
    "Kenyan": ("Kenya",),
    "Ugandan": ("Uganda",),
    "Tanzanian": ("Tanzania",),
    "Congolese": ("DR Congo",),
    "Angolan": ("Angola",),
    "Zimbabwean": ("Zimbabwe",),
    "South African": ("South Africa",),
    "Canadian": ("Canada",),
    "Mexican": ("Mexico",),
    "Cuban": ("Cuba",),
    "Panamanian": ("Panama",),
    "Jamaican": ("Jamaica",),
    "Brazilian": ("Brazil",),
    "Argentine": ("Argentina",),
    "Argentinian": ("Argentina",),
    "Peruvian": ("Peru",),
    "Colombian": ("Colombia",),
    "Chilean": ("Chile",),
    "Venezuelan": ("Venezuela",),
    "Ecuadorian": ("Ecuador",),
    "Uruguayan": ("Uruguay",),
    "Paraguayan": ("Paraguay",),
    "Australian": ("Australia",),
    "Kiwi": ("New Zealand",),
}
"""Adjectives naming a table country ("a French city", "is it Korean?")."""

LANGUAGE_ALIASES: dict[str, tuple[str, ...]] = {
    "Chinese": ("Mandarin Chinese", "Cantonese"),
    "Mandarin": ("Mandarin Chinese",),
    "Farsi": ("Persian",),
    "Tagalog": ("Filipino",),
    "Amazigh": ("Berber",),
    "Kiswahili": ("Swahili",),
    "Te Reo": ("Maori",),
}
"""Other names of table languages (each language's own name is always known)."""

EXTRA_COUNTRIES: tuple[str, ...] = (
    "Afghanistan",
    "Albania",
    "Armenia",
    "Azerbaijan",
    "Bahrain",
    "Belarus",
    "Bhutan",
    "Bolivia",
    "Bosnia",
    "Botswana",
    "Cameroon",
    "Chad",
    "Costa Rica",
    "Croatia",
    "Cyprus",
    "Dominican Republic",
    "El Salvador",
    "Eritrea",
    "Fiji",
    "Gabon",
    "Georgia",
    "Guatemala",
    "Guinea",
    "Haiti",
    "Honduras",
    "Kuwait",
    "Kyrgyzstan",
    "Laos",
    "Libya",
    "Lithuania",
    "Luxembourg",
    "Madagascar",
    "Malawi",
    "Mali",
    "Malta",
    "Mauritania",
    "Moldova",
    "Monaco",
    "Montenegro",
    "Mozambique",
    "Namibia",
    "Nicaragua",
    "Niger",
    "Oman",
    "Papua New Guinea",
    "Rwanda",
    "Scotland",
    "Slovakia",
    "Slovenia",
    "Somalia",
    "Sri Lanka",
    "Syria",
    "Tajikistan",
    "Turkmenistan",
    "Wales",
    "Yemen",
    "Zambia",
    "Vatican",
    "Greenland",
    "Puerto Rico",
)
"""Countries with no city in the table: the oracle answers "No." about them."""

REGIONS: dict[str, tuple[str, ...]] = {
    "Middle East": (
        "Iran",
        "Iraq",
        "Saudi Arabia",
        "United Arab Emirates",
        "Qatar",
        "Israel",
        "Lebanon",
        "Jordan",
        "Egypt",
        "Turkey",
    ),
    "Scandinavia": ("Sweden", "Norway", "Denmark"),
    "Nordic countries": ("Sweden", "Norway", "Denmark", "Finland", "Iceland"),
    "Southeast Asia": (
        "Singapore",
        "Thailand",
        "Malaysia",
        "Indonesia",
        "Philippines",
        "Vietnam",
        "Cambodia",
        "Myanmar",
    ),
    "East Asia": ("Japan", "South Korea", "North Korea", "China", "Taiwan", "Mongolia"),
    "South Asia": ("India", "Pakistan", "Bangladesh", "Nepal"),
    "Central Asia": ("Uzbekistan", "Kazakhstan"),
    "Latin America": (
        "Mexico",
        "Cuba",
        "Panama",
        "Brazil",
        "Argentina",
        "Peru",
        "Colombia",
        "Chile",
        "Venezuela",
        "Ecuador",
        "Uruguay",
        "Paraguay",
    ),
    "Central America": ("Panama",),
    "Caribbean": ("Cuba", "Jamaica"),
    "Balkans": ("Serbia", "Bulgaria", "Romania", "Greece"),
    "Baltic states": ("Latvia", "Estonia"),
    "Scandinavian": ("Sweden", "Norway", "Denmark"),
    "Middle Eastern": (
        "Iran",
        "Iraq",
        "Saudi Arabia",
        "United Arab Emirates",
        "Qatar",
        "Israel",
        "Lebanon",
        "Jordan",
        "Egypt",
        "Turkey",
    ),
    "Latin American": (
        "Mexico",
        "Cuba",
        "Panama",
        "Brazil",
        "Argentina",
        "Peru",
        "Colombia",
        "Chile",
        "Venezuela",
        "Ecuador",
        "Uruguay",
        "Paraguay",
    ),
}
"""Regions a player may ask about, as the table countries they cover."""
