"""The bundled world-city table of ``GuessMyCity-v0`` and the words the oracle knows.

Facts are approximate but sensible: ``population`` is the urban area in millions
(rounded, kept clear of the band edges 1, 5 and 10 million), ``climate`` is a plain
word a traveller would use, and landmarks never spell out the city's or country's
name, so asking for a landmark does not hand over the answer in so many words.

Each row of ``_ROWS`` reads: name, country, continent ("Europe/Asia" for a city in
both), population (millions), tags ("coastal", "capital", "south" for the southern
hemisphere), languages ("; "-separated), landmarks ("; "-separated, ``|`` adds a short
alias), climate, and optional aliases (";"-separated).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "CITIES",
    "CLIMATES",
    "CONTINENTS",
    "COUNTRY_ALIASES",
    "DEMONYMS",
    "EXTRA_COUNTRIES",
    "LANGUAGE_ALIASES",
    "REGIONS",
    "City",
    "population_band",
]

CONTINENTS = ("Africa", "Asia", "Europe", "North America", "Oceania", "South America")
CLIMATES = ("tropical", "subtropical", "desert", "mediterranean", "temperate", "continental", "cold")
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


# fmt: off
_ROWS: tuple[tuple[Any, ...], ...] = (
    # -- Europe ---------------------------------------------------------------------------
    ("London", "United Kingdom", "Europe", 9.6, "capital", "English", "Big Ben; Buckingham Palace", "temperate"),
    ("Manchester", "United Kingdom", "Europe", 2.8, "", "English", "Old Trafford; John Rylands Library", "temperate"),
    ("Paris", "France", "Europe", 11.0, "capital", "French", "Eiffel Tower|Eiffel; Louvre Museum|Louvre", "temperate"),
    ("Marseille", "France", "Europe", 1.6, "coastal", "French", "Notre-Dame de la Garde; Old Port|Vieux-Port", "mediterranean", "Marseilles"),
    ("Lyon", "France", "Europe", 1.7, "", "French", "Fourviere Basilica; Place Bellecour", "temperate", "Lyons"),
    ("Berlin", "Germany", "Europe", 3.8, "capital", "German", "Brandenburg Gate; Reichstag Building|Reichstag", "temperate"),
    ("Munich", "Germany", "Europe", 2.0, "", "German", "Marienplatz; Nymphenburg Palace", "temperate", "Muenchen; Munchen"),
    ("Madrid", "Spain", "Europe", 6.7, "capital", "Spanish", "Prado Museum|Prado; Puerta del Sol", "mediterranean"),
    ("Barcelona", "Spain", "Europe", 5.6, "coastal", "Spanish; Catalan", "Sagrada Familia; Park Guell", "mediterranean"),
    ("Rome", "Italy", "Europe", 4.3, "capital", "Italian", "Colosseum; Trevi Fountain", "mediterranean", "Roma"),
    ("Milan", "Italy", "Europe", 3.1, "", "Italian", "Duomo; La Scala", "temperate", "Milano"),
    ("Venice", "Italy", "Europe", 0.26, "coastal", "Italian", "St Mark's Basilica; Rialto Bridge", "temperate", "Venezia"),
    ("Naples", "Italy", "Europe", 3.0, "coastal", "Italian", "Mount Vesuvius|Vesuvius; Castel dell'Ovo", "mediterranean", "Napoli"),
    ("Florence", "Italy", "Europe", 0.7, "", "Italian", "Uffizi Gallery|Uffizi; Ponte Vecchio", "temperate", "Firenze"),
    ("Amsterdam", "Netherlands", "Europe", 1.6, "capital", "Dutch", "Rijksmuseum; Anne Frank House", "temperate"),
    ("Brussels", "Belgium", "Europe", 2.1, "capital", "French; Dutch", "Atomium; Grand Place", "temperate", "Bruxelles"),
    ("Vienna", "Austria", "Europe", 2.0, "capital", "German", "Schonbrunn Palace|Schonbrunn; St Stephen's Cathedral", "temperate", "Wien"),
    ("Zurich", "Switzerland", "Europe", 1.4, "", "German", "Grossmunster; Bahnhofstrasse", "temperate"),
    ("Geneva", "Switzerland", "Europe", 0.6, "", "French", "Jet d'Eau; Palace of Nations", "temperate", "Geneve"),
    ("Prague", "Czech Republic", "Europe", 1.3, "capital", "Czech", "Charles Bridge; Old Town Square", "temperate", "Praha"),
    ("Budapest", "Hungary", "Europe", 1.8, "capital", "Hungarian", "Chain Bridge; Fisherman's Bastion", "continental"),
    ("Warsaw", "Poland", "Europe", 1.8, "capital", "Polish", "Palace of Culture and Science; Royal Castle", "continental", "Warszawa"),
    ("Krakow", "Poland", "Europe", 0.8, "", "Polish", "Wawel Castle|Wawel; Main Market Square", "continental", "Cracow"),
    ("Moscow", "Russia", "Europe", 12.6, "capital", "Russian", "Red Square; Kremlin", "continental", "Moskva"),
    ("Saint Petersburg", "Russia", "Europe", 5.4, "coastal", "Russian", "Hermitage Museum|Hermitage; Peter and Paul Fortress", "continental", "St Petersburg; Leningrad"),
    ("Kyiv", "Ukraine", "Europe", 3.0, "capital", "Ukrainian", "Saint Sophia Cathedral; Maidan Nezalezhnosti|Maidan", "continental", "Kiev"),
    ("Stockholm", "Sweden", "Europe", 1.6, "coastal capital", "Swedish", "Vasa Museum; Gamla Stan", "continental"),
    ("Oslo", "Norway", "Europe", 1.1, "coastal capital", "Norwegian", "Vigeland Sculpture Park|Vigeland Park; Akershus Fortress", "continental"),
    ("Copenhagen", "Denmark", "Europe", 1.4, "coastal capital", "Danish", "Little Mermaid statue|Little Mermaid; Tivoli Gardens|Tivoli", "temperate"),
    ("Helsinki", "Finland", "Europe", 1.3, "coastal capital", "Finnish; Swedish", "Suomenlinna; Temppeliaukio Church|Rock Church", "continental"),
    ("Reykjavik", "Iceland", "Europe", 0.24, "coastal capital", "Icelandic", "Hallgrimskirkja; Harpa concert hall|Harpa", "cold"),
    ("Dublin", "Ireland", "Europe", 1.4, "coastal capital", "English; Irish", "Trinity College; Guinness Storehouse", "temperate"),
    ("Lisbon", "Portugal", "Europe", 2.9, "coastal capital", "Portuguese", "Belem Tower; Sao Jorge Castle", "mediterranean", "Lisboa"),
    ("Porto", "Portugal", "Europe", 1.3, "coastal", "Portuguese", "Dom Luis I Bridge; Livraria Lello", "mediterranean", "Oporto"),
    ("Athens", "Greece", "Europe", 3.2, "coastal capital", "Greek", "Acropolis; Parthenon", "mediterranean", "Athina"),
    ("Bucharest", "Romania", "Europe", 1.8, "capital", "Romanian", "Palace of the Parliament; Arcul de Triumf", "continental"),
    ("Sofia", "Bulgaria", "Europe", 1.3, "capital", "Bulgarian", "Alexander Nevsky Cathedral; Vitosha mountain|Vitosha", "continental"),
    ("Belgrade", "Serbia", "Europe", 1.4, "capital", "Serbian", "Kalemegdan Fortress|Kalemegdan; Church of Saint Sava", "continental", "Beograd"),
    ("Riga", "Latvia", "Europe", 0.6, "coastal capital", "Latvian", "House of the Blackheads; Freedom Monument", "continental"),
    ("Tallinn", "Estonia", "Europe", 0.45, "coastal capital", "Estonian", "Toompea Castle|Toompea; Kadriorg Palace", "continental"),
    ("Istanbul", "Turkey", "Europe/Asia", 15.5, "coastal", "Turkish", "Hagia Sophia; Blue Mosque", "temperate", "Constantinople"),
    # -- Asia -----------------------------------------------------------------------------
    ("Ankara", "Turkey", "Asia", 5.7, "capital", "Turkish", "Anitkabir; Kocatepe Mosque", "continental"),
    ("Tokyo", "Japan", "Asia", 37.4, "coastal capital", "Japanese", "Shibuya Crossing; Senso-ji Temple|Senso-ji", "temperate"),
    ("Osaka", "Japan", "Asia", 19.0, "coastal", "Japanese", "Dotonbori; Shitennoji Temple", "temperate"),
    ("Kyoto", "Japan", "Asia", 1.5, "", "Japanese", "Fushimi Inari Shrine|Fushimi Inari; Kinkaku-ji|Golden Pavilion", "temperate"),
    ("Seoul", "South Korea", "Asia", 25.0, "capital", "Korean", "Gyeongbokgung Palace|Gyeongbokgung; Bukchon Hanok Village", "continental"),
    ("Busan", "South Korea", "Asia", 3.4, "coastal", "Korean", "Haeundae Beach; Gamcheon Culture Village", "temperate", "Pusan"),
    ("Pyongyang", "North Korea", "Asia", 3.1, "capital", "Korean", "Juche Tower; Kim Il-sung Square", "continental"),
    ("Beijing", "China", "Asia", 21.5, "capital", "Mandarin Chinese", "Forbidden City; Temple of Heaven", "continental", "Peking"),
    ("Shanghai", "China", "Asia", 27.0, "coastal", "Mandarin Chinese", "The Bund; Oriental Pearl Tower", "subtropical"),
    ("Hong Kong", "China", "Asia", 7.5, "coastal", "Cantonese; English", "Victoria Peak; Star Ferry", "subtropical", "HK"),
    ("Guangzhou", "China", "Asia", 18.7, "", "Cantonese; Mandarin Chinese", "Chen Clan Ancestral Hall; Shamian Island", "subtropical", "Canton"),
    ("Shenzhen", "China", "Asia", 17.5, "coastal", "Mandarin Chinese", "Window of the World; Ping An Finance Centre", "subtropical"),
    ("Chengdu", "China", "Asia", 16.0, "", "Mandarin Chinese", "Giant Panda Breeding Base|Panda Base; Jinli Street", "subtropical"),
    ("Taipei", "Taiwan", "Asia", 7.0, "capital", "Mandarin Chinese", "National Palace Museum; Chiang Kai-shek Memorial Hall", "subtropical"),
    ("Singapore", "Singapore", "Asia", 5.9, "coastal capital", "English; Malay; Mandarin Chinese; Tamil", "Marina Bay Sands; Gardens by the Bay", "tropical"),
    ("Bangkok", "Thailand", "Asia", 11.0, "capital", "Thai", "Grand Palace; Wat Arun", "tropical", "Krung Thep"),
    ("Kuala Lumpur", "Malaysia", "Asia", 8.4, "capital", "Malay", "Petronas Towers; Batu Caves", "tropical", "KL"),
    ("Jakarta", "Indonesia", "Asia", 34.0, "coastal capital south", "Indonesian", "National Monument|Monas; Istiqlal Mosque", "tropical"),
    ("Manila", "Philippines", "Asia", 14.0, "coastal capital", "Filipino; English", "Intramuros; Rizal Park", "tropical"),
    ("Ho Chi Minh City", "Vietnam", "Asia", 9.3, "", "Vietnamese", "Ben Thanh Market; Independence Palace", "tropical", "Saigon; HCMC"),
    ("Hanoi", "Vietnam", "Asia", 8.4, "capital", "Vietnamese", "Hoan Kiem Lake; Temple of Literature", "subtropical"),
    ("Phnom Penh", "Cambodia", "Asia", 2.3, "capital", "Khmer", "Silver Pagoda; Tuol Sleng Museum", "tropical"),
    ("Yangon", "Myanmar", "Asia", 5.6, "", "Burmese", "Shwedagon Pagoda|Shwedagon; Sule Pagoda", "tropical", "Rangoon"),
    ("Mumbai", "India", "Asia", 21.0, "coastal", "Marathi; Hindi", "Chhatrapati Shivaji Terminus; Marine Drive", "tropical", "Bombay"),
    ("New Delhi", "India", "Asia", 32.0, "capital", "Hindi", "Red Fort; Qutub Minar", "subtropical", "Delhi"),
    ("Bangalore", "India", "Asia", 13.0, "", "Kannada", "Lalbagh Botanical Garden; Cubbon Park", "tropical", "Bengaluru"),
    ("Kolkata", "India", "Asia", 15.0, "", "Bengali", "Victoria Memorial; Howrah Bridge", "tropical", "Calcutta"),
    ("Chennai", "India", "Asia", 11.5, "coastal", "Tamil", "Marina Beach; Kapaleeshwarar Temple", "tropical", "Madras"),
    ("Karachi", "Pakistan", "Asia", 17.0, "coastal", "Urdu; Sindhi", "Mazar-e-Quaid; Clifton Beach", "desert"),
    ("Lahore", "Pakistan", "Asia", 13.0, "", "Punjabi; Urdu", "Badshahi Mosque; Shalimar Gardens", "subtropical"),
    ("Islamabad", "Pakistan", "Asia", 1.2, "capital", "Urdu", "Faisal Mosque; Daman-e-Koh", "subtropical"),
    ("Dhaka", "Bangladesh", "Asia", 23.0, "capital", "Bengali", "Lalbagh Fort; Ahsan Manzil", "tropical", "Dacca"),
    ("Kathmandu", "Nepal", "Asia", 1.5, "capital", "Nepali", "Boudhanath Stupa|Boudhanath; Swayambhunath|Monkey Temple", "temperate"),
    ("Tehran", "Iran", "Asia", 9.5, "capital", "Persian", "Azadi Tower; Golestan Palace", "desert", "Teheran"),
    ("Baghdad", "Iraq", "Asia", 7.5, "capital", "Arabic", "Al-Shaheed Monument; Mustansiriya Madrasa", "desert"),
    ("Riyadh", "Saudi Arabia", "Asia", 7.7, "capital", "Arabic", "Kingdom Centre; Masmak Fortress", "desert"),
    ("Mecca", "Saudi Arabia", "Asia", 2.4, "", "Arabic", "Kaaba; Masjid al-Haram|Great Mosque", "desert", "Makkah"),
    ("Dubai", "United Arab Emirates", "Asia", 3.6, "coastal", "Arabic; English", "Burj Khalifa; Palm Jumeirah", "desert"),
    ("Doha", "Qatar", "Asia", 2.4, "coastal capital", "Arabic", "Museum of Islamic Art; Souq Waqif", "desert"),
    ("Tel Aviv", "Israel", "Asia", 4.2, "coastal", "Hebrew", "Jaffa Port; Rothschild Boulevard", "mediterranean"),
    ("Beirut", "Lebanon", "Asia", 2.4, "coastal capital", "Arabic; French", "Pigeon Rocks|Raouche; Mohammad Al-Amin Mosque", "mediterranean"),
    ("Amman", "Jordan", "Asia", 4.0, "capital", "Arabic", "Roman Theatre; King Abdullah I Mosque", "desert"),
    ("Tashkent", "Uzbekistan", "Asia", 2.9, "capital", "Uzbek", "Amir Timur Square; Chorsu Bazaar", "continental"),
    ("Almaty", "Kazakhstan", "Asia", 2.2, "", "Kazakh; Russian", "Medeu skating rink|Medeu; Zenkov Cathedral", "continental", "Alma-Ata"),
    ("Ulaanbaatar", "Mongolia", "Asia", 1.7, "capital", "Mongolian", "Sukhbaatar Square; Gandan Monastery", "cold", "Ulan Bator"),
    # -- Africa ---------------------------------------------------------------------------
    ("Cairo", "Egypt", "Africa", 22.0, "capital", "Arabic", "Pyramids of Giza|Pyramids; Khan el-Khalili", "desert"),
    ("Alexandria", "Egypt", "Africa", 5.5, "coastal", "Arabic", "Citadel of Qaitbay; Montaza Palace", "mediterranean"),
    ("Lagos", "Nigeria", "Africa", 15.0, "coastal", "English; Yoruba", "Lekki Conservation Centre; National Theatre", "tropical"),
    ("Abuja", "Nigeria", "Africa", 3.8, "capital", "English; Hausa", "Aso Rock; Zuma Rock", "tropical"),
    ("Accra", "Ghana", "Africa", 4.0, "coastal capital", "English; Twi", "Kwame Nkrumah Mausoleum; Independence Arch", "tropical"),
    ("Dakar", "Senegal", "Africa", 3.9, "coastal capital", "French; Wolof", "African Renaissance Monument; Goree Island", "tropical"),
    ("Abidjan", "Ivory Coast", "Africa", 5.6, "coastal", "French", "Banco National Park; Treichville Market", "tropical"),
    ("Casablanca", "Morocco", "Africa", 4.3, "coastal", "Arabic; French", "Hassan II Mosque; Corniche", "mediterranean"),
    ("Marrakesh", "Morocco", "Africa", 0.95, "", "Arabic; Berber", "Jemaa el-Fnaa; Koutoubia Mosque", "desert", "Marrakech"),
    ("Tunis", "Tunisia", "Africa", 2.7, "coastal capital", "Arabic", "Ruins of Carthage|Carthage; Zitouna Mosque", "mediterranean"),
    ("Algiers", "Algeria", "Africa", 3.9, "coastal capital", "Arabic; French", "Casbah; Maqam Echahid", "mediterranean", "Alger"),
    ("Khartoum", "Sudan", "Africa", 6.0, "capital", "Arabic", "Confluence of the Blue and White Nile; Corinthia Hotel", "desert"),
    ("Addis Ababa", "Ethiopia", "Africa", 5.5, "capital", "Amharic", "Holy Trinity Cathedral; Meskel Square", "temperate"),
    ("Nairobi", "Kenya", "Africa", 5.3, "capital south", "Swahili; English", "Giraffe Centre; Karura Forest", "temperate"),
    ("Kampala", "Uganda", "Africa", 3.7, "capital", "English; Luganda", "Kasubi Tombs; Gaddafi National Mosque", "tropical"),
    ("Dar es Salaam", "Tanzania", "Africa", 7.0, "coastal south", "Swahili; English", "Kariakoo Market; Askari Monument", "tropical", "Dar"),
    ("Kinshasa", "DR Congo", "Africa", 17.0, "capital south", "French; Lingala", "Palais de la Nation; Lola ya Bonobo", "tropical"),
    ("Luanda", "Angola", "Africa", 9.0, "coastal capital south", "Portuguese", "Fortress of Sao Miguel; Agostinho Neto Mausoleum", "desert"),
    ("Harare", "Zimbabwe", "Africa", 1.6, "capital south", "English; Shona", "National Heroes Acre; Eastgate Centre", "temperate"),
    ("Johannesburg", "South Africa", "Africa", 6.0, "south", "English; Zulu; Afrikaans", "Constitution Hill; Apartheid Museum", "temperate", "Joburg; Jozi"),
    ("Cape Town", "South Africa", "Africa", 4.8, "coastal capital south", "English; Afrikaans; Xhosa", "Table Mountain; Robben Island", "mediterranean"),
    ("Durban", "South Africa", "Africa", 3.7, "coastal south", "English; Zulu", "uShaka Marine World; Golden Mile", "subtropical"),
    # -- North America ----------------------------------------------------------------------
    ("New York City", "United States", "North America", 19.0, "coastal", "English", "Statue of Liberty; Empire State Building", "temperate", "New York; NYC; NY; Big Apple"),
    ("Los Angeles", "United States", "North America", 12.5, "coastal", "English; Spanish", "Hollywood Sign|Hollywood; Griffith Observatory", "mediterranean", "LA"),
    ("Chicago", "United States", "North America", 8.6, "", "English", "Willis Tower|Sears Tower; Cloud Gate|The Bean", "continental"),
    ("Houston", "United States", "North America", 6.7, "", "English; Spanish", "Johnson Space Center; San Jacinto Monument", "subtropical"),
    ("Philadelphia", "United States", "North America", 5.7, "", "English", "Liberty Bell; Independence Hall", "temperate", "Philly"),
    ("Phoenix", "United States", "North America", 4.6, "", "English; Spanish", "Desert Botanical Garden; Camelback Mountain", "desert"),
    ("San Francisco", "United States", "North America", 3.3, "coastal", "English", "Golden Gate Bridge|Golden Gate; Alcatraz", "mediterranean", "SF; San Fran; Frisco"),
    ("Washington, D.C.", "United States", "North America", 5.2, "capital", "English", "White House; Lincoln Memorial", "temperate", "Washington; DC; Washington DC"),
    ("Miami", "United States", "North America", 6.1, "coastal", "English; Spanish", "South Beach; Vizcaya Museum", "tropical"),
    ("Boston", "United States", "North America", 4.4, "coastal", "English", "Freedom Trail; Fenway Park", "continental"),
    ("Seattle", "United States", "North America", 3.5, "coastal", "English", "Space Needle; Pike Place Market", "temperate"),
    ("Las Vegas", "United States", "North America", 2.3, "", "English", "Bellagio Fountains; Fremont Street", "desert", "Vegas"),
    ("Toronto", "Canada", "North America", 6.3, "", "English", "CN Tower; Royal Ontario Museum", "continental"),
    ("Montreal", "Canada", "North America", 4.3, "", "French; English", "Notre-Dame Basilica; Mount Royal", "continental"),
    ("Vancouver", "Canada", "North America", 2.6, "coastal", "English", "Stanley Park; Capilano Suspension Bridge", "temperate"),
    ("Ottawa", "Canada", "North America", 1.4, "capital", "English; French", "Parliament Hill; Rideau Canal", "continental"),
    ("Mexico City", "Mexico", "North America", 22.0, "capital", "Spanish", "Zocalo; Chapultepec Castle", "temperate", "CDMX; Ciudad de Mexico"),
    ("Guadalajara", "Mexico", "North America", 5.3, "", "Spanish", "Hospicio Cabanas; Tlaquepaque", "subtropical"),
    ("Monterrey", "Mexico", "North America", 5.3, "", "Spanish", "Cerro de la Silla; Macroplaza", "desert"),
    ("Havana", "Cuba", "North America", 2.1, "coastal capital", "Spanish", "El Capitolio; Malecon", "tropical", "La Habana"),
    ("Panama City", "Panama", "North America", 1.9, "coastal capital", "Spanish", "Casco Viejo; Biomuseo", "tropical"),
    ("Kingston", "Jamaica", "North America", 1.2, "coastal capital", "English", "Bob Marley Museum; Devon House", "tropical"),
    # -- South America ----------------------------------------------------------------------
    ("Sao Paulo", "Brazil", "South America", 22.0, "south", "Portuguese", "Paulista Avenue; Ibirapuera Park", "subtropical"),
    ("Rio de Janeiro", "Brazil", "South America", 13.5, "coastal south", "Portuguese", "Christ the Redeemer; Sugarloaf Mountain|Sugarloaf", "tropical", "Rio"),
    ("Brasilia", "Brazil", "South America", 3.1, "capital south", "Portuguese", "National Congress building; Metropolitan Cathedral", "tropical"),
    ("Buenos Aires", "Argentina", "South America", 15.5, "coastal capital south", "Spanish", "Obelisco; Caminito", "temperate", "BA"),
    ("Lima", "Peru", "South America", 11.0, "coastal capital south", "Spanish", "Huaca Pucllana; Monastery of San Francisco", "desert"),
    ("Cusco", "Peru", "South America", 0.43, "south", "Spanish; Quechua", "Sacsayhuaman; Qorikancha", "temperate", "Cuzco"),
    ("Bogota", "Colombia", "South America", 11.0, "capital", "Spanish", "Monserrate; Gold Museum", "temperate"),
    ("Medellin", "Colombia", "South America", 4.0, "", "Spanish", "Comuna 13; Plaza Botero", "temperate"),
    ("Santiago", "Chile", "South America", 7.0, "capital south", "Spanish", "Cerro San Cristobal; La Moneda Palace|La Moneda", "mediterranean", "Santiago de Chile"),
    ("Caracas", "Venezuela", "South America", 3.0, "capital", "Spanish", "El Avila National Park|El Avila; Parque del Este", "tropical"),
    ("Quito", "Ecuador", "South America", 2.0, "capital south", "Spanish", "Mitad del Mundo; Basilica del Voto Nacional", "temperate"),
    ("Montevideo", "Uruguay", "South America", 1.8, "coastal capital south", "Spanish", "Palacio Salvo; Solis Theatre", "temperate"),
    ("Asuncion", "Paraguay", "South America", 2.3, "capital south", "Spanish; Guarani", "Palacio de los Lopez; Panteon Nacional de los Heroes", "subtropical"),
    # -- Oceania ------------------------------------------------------------------------------
    ("Sydney", "Australia", "Oceania", 5.3, "coastal south", "English", "Opera House; Bondi Beach|Bondi", "temperate"),
    ("Melbourne", "Australia", "Oceania", 5.2, "coastal south", "English", "Federation Square; Royal Exhibition Building", "temperate"),
    ("Brisbane", "Australia", "Oceania", 2.6, "coastal south", "English", "Story Bridge; South Bank Parklands", "subtropical"),
    ("Perth", "Australia", "Oceania", 2.2, "coastal south", "English", "Kings Park; Rottnest Island", "mediterranean"),
    ("Canberra", "Australia", "Oceania", 0.47, "capital south", "English", "Parliament House; Lake Burley Griffin", "temperate"),
    ("Auckland", "New Zealand", "Oceania", 1.7, "coastal south", "English; Maori", "Sky Tower; Mount Eden", "temperate"),
    ("Wellington", "New Zealand", "Oceania", 0.44, "coastal capital south", "English; Maori", "Te Papa Museum|Te Papa; Mount Victoria lookout", "temperate"),
)
# fmt: on


def _split(text: str, sep: str = ";") -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(sep) if part.strip())


def _build(row: tuple[Any, ...]) -> City:
    name, country, continent, pop, tags, langs, marks, climate, *rest = row
    unknown = set(tags.split()) - _TAGS
    if unknown or climate not in CLIMATES or any(c not in CONTINENTS for c in continent.split("/")):
        raise ValueError(f"bad row for {name}: {row}")  # a typo in the table above
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
        aliases=_split(rest[0]) if rest else (),
    )


CITIES: tuple[City, ...] = tuple(_build(row) for row in _ROWS)
"""Every city of the game, in table order."""

COUNTRY_ALIASES: dict[str, tuple[str, ...]] = {
    "United States": ("USA", "US of A", "United States of America", "America", "the States", "U.S.A."),
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
    "American": ("United States",), "British": ("United Kingdom",), "English": ("United Kingdom",),
    "French": ("France",), "German": ("Germany",), "Spanish": ("Spain",), "Italian": ("Italy",),
    "Dutch": ("Netherlands",), "Belgian": ("Belgium",), "Austrian": ("Austria",),
    "Swiss": ("Switzerland",), "Czech": ("Czech Republic",), "Hungarian": ("Hungary",),
    "Polish": ("Poland",), "Russian": ("Russia",), "Ukrainian": ("Ukraine",),
    "Swedish": ("Sweden",), "Norwegian": ("Norway",), "Danish": ("Denmark",),
    "Finnish": ("Finland",), "Icelandic": ("Iceland",), "Irish": ("Ireland",),
    "Portuguese": ("Portugal",), "Greek": ("Greece",), "Romanian": ("Romania",),
    "Bulgarian": ("Bulgaria",), "Serbian": ("Serbia",), "Latvian": ("Latvia",),
    "Estonian": ("Estonia",), "Turkish": ("Turkey",), "Japanese": ("Japan",),
    "Korean": ("South Korea", "North Korea"), "Chinese": ("China",), "Taiwanese": ("Taiwan",),
    "Singaporean": ("Singapore",), "Thai": ("Thailand",), "Malaysian": ("Malaysia",),
    "Indonesian": ("Indonesia",), "Filipino": ("Philippines",), "Vietnamese": ("Vietnam",),
    "Cambodian": ("Cambodia",), "Burmese": ("Myanmar",), "Indian": ("India",),
    "Pakistani": ("Pakistan",), "Bangladeshi": ("Bangladesh",), "Nepali": ("Nepal",),
    "Nepalese": ("Nepal",), "Iranian": ("Iran",), "Persian": ("Iran",), "Iraqi": ("Iraq",),
    "Saudi": ("Saudi Arabia",), "Emirati": ("United Arab Emirates",), "Qatari": ("Qatar",),
    "Israeli": ("Israel",), "Lebanese": ("Lebanon",), "Jordanian": ("Jordan",),
    "Uzbek": ("Uzbekistan",), "Kazakh": ("Kazakhstan",), "Mongolian": ("Mongolia",),
    "Egyptian": ("Egypt",), "Nigerian": ("Nigeria",), "Ghanaian": ("Ghana",),
    "Senegalese": ("Senegal",), "Ivorian": ("Ivory Coast",), "Moroccan": ("Morocco",),
    "Tunisian": ("Tunisia",), "Algerian": ("Algeria",), "Sudanese": ("Sudan",),
    "Ethiopian": ("Ethiopia",), "Kenyan": ("Kenya",), "Ugandan": ("Uganda",),
    "Tanzanian": ("Tanzania",), "Congolese": ("DR Congo",), "Angolan": ("Angola",),
    "Zimbabwean": ("Zimbabwe",), "South African": ("South Africa",), "Canadian": ("Canada",),
    "Mexican": ("Mexico",), "Cuban": ("Cuba",), "Panamanian": ("Panama",),
    "Jamaican": ("Jamaica",), "Brazilian": ("Brazil",), "Argentine": ("Argentina",),
    "Argentinian": ("Argentina",), "Peruvian": ("Peru",), "Colombian": ("Colombia",),
    "Chilean": ("Chile",), "Venezuelan": ("Venezuela",), "Ecuadorian": ("Ecuador",),
    "Uruguayan": ("Uruguay",), "Paraguayan": ("Paraguay",), "Australian": ("Australia",),
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
    "Afghanistan", "Albania", "Armenia", "Azerbaijan", "Bahrain", "Belarus", "Bhutan",
    "Bolivia", "Bosnia", "Botswana", "Cameroon", "Chad", "Costa Rica", "Croatia", "Cyprus",
    "Dominican Republic", "El Salvador", "Eritrea", "Fiji", "Gabon", "Georgia", "Guatemala",
    "Guinea", "Haiti", "Honduras", "Kuwait", "Kyrgyzstan", "Laos", "Libya", "Lithuania",
    "Luxembourg", "Madagascar", "Malawi", "Mali", "Malta", "Mauritania", "Moldova", "Monaco",
    "Montenegro", "Mozambique", "Namibia", "Nicaragua", "Niger", "Oman", "Papua New Guinea",
    "Rwanda", "Scotland", "Slovakia", "Slovenia", "Somalia", "Sri Lanka", "Syria", "Tajikistan",
    "Turkmenistan", "Wales", "Yemen", "Zambia", "Vatican", "Greenland", "Puerto Rico",
)
"""Countries with no city in the table: the oracle answers "No." about them."""

REGIONS: dict[str, tuple[str, ...]] = {
    "Middle East": ("Iran", "Iraq", "Saudi Arabia", "United Arab Emirates", "Qatar", "Israel",
                    "Lebanon", "Jordan", "Egypt", "Turkey"),
    "Scandinavia": ("Sweden", "Norway", "Denmark"),
    "Nordic countries": ("Sweden", "Norway", "Denmark", "Finland", "Iceland"),
    "Southeast Asia": ("Singapore", "Thailand", "Malaysia", "Indonesia", "Philippines",
                       "Vietnam", "Cambodia", "Myanmar"),
    "East Asia": ("Japan", "South Korea", "North Korea", "China", "Taiwan", "Mongolia"),
    "South Asia": ("India", "Pakistan", "Bangladesh", "Nepal"),
    "Central Asia": ("Uzbekistan", "Kazakhstan"),
    "Latin America": ("Mexico", "Cuba", "Panama", "Brazil", "Argentina", "Peru", "Colombia",
                      "Chile", "Venezuela", "Ecuador", "Uruguay", "Paraguay"),
    "Central America": ("Panama",),
    "Caribbean": ("Cuba", "Jamaica"),
    "Balkans": ("Serbia", "Bulgaria", "Romania", "Greece"),
    "Baltic states": ("Latvia", "Estonia"),
    "Scandinavian": ("Sweden", "Norway", "Denmark"),
    "Middle Eastern": ("Iran", "Iraq", "Saudi Arabia", "United Arab Emirates", "Qatar",
                       "Israel", "Lebanon", "Jordan", "Egypt", "Turkey"),
    "Latin American": ("Mexico", "Cuba", "Panama", "Brazil", "Argentina", "Peru", "Colombia",
                       "Chile", "Venezuela", "Ecuador", "Uruguay", "Paraguay"),
}
"""Regions a player may ask about, as the table countries they cover."""
