"""The knowledge base of ``TwentyQuestions-v0``: objects, attributes and question phrasings.

Written for turngym. Every object has one yes/no value per attribute: the attributes
listed as true, a few marked unknown (genuinely debatable, answered "I don't know."),
and every other attribute false. ``ATTRIBUTES`` gives each attribute its canonical
question and the key phrases the rule-based oracle recognises: a key is a set of
words that must all occur in the question; a key starting with ``!`` asks the
opposite (``"natural"`` is the negation of ``man_made``).

Attribute meanings (what "true" means):
    alive: a living organism (animal, plant or fungus); animal, mammal, bird, fish,
    insect (true insects only), reptile (not amphibians), plant (a growing plant);
    food: commonly eaten or drunk by people; fruit, vegetable (in cooking); sweet: tastes
    sweet; man_made; electric: runs on electricity; vehicle, tool, furniture,
    clothing (worn on the body), instrument (musical), sport (sports equipment), toy,
    container (made to hold things); fly: can fly; water: lives or travels in/on water;
    legs, wheels, fur (fur or hair), wings, tail, stripes; pet: commonly kept as a pet;
    farm: a farm animal; meat: eats meat; big: bigger than a breadbox; huge: bigger than
    an adult person; giant: bigger than a car; metal, wood, plastic, glass, fabric: the
    main material; soft, sharp, round; kitchen: a kitchen utensil or appliance; house:
    usually found inside a home; outdoors: usually found outdoors; green, red, yellow:
    its usual colour; engine: has an engine or motor; screen: has a screen; eggs: lays
    eggs; trees: grows on trees; write: used to write or draw.
"""

from __future__ import annotations

__all__ = ["ATTRIBUTES", "OBJECTS", "KnownObject"]

from typing import NamedTuple

# attribute -> (canonical question, key phrases). Order matters only to break ties.
ATTRIBUTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "alive": (
        "Is it a living thing?",
        ("alive", "living", "life form", "organism", "breathe", "breathes", "!dead"),
    ),
    "animal": ("Is it an animal?", ("animal", "animals", "creature", "beast")),
    "mammal": ("Is it a mammal?", ("mammal", "mammals")),
    "bird": ("Is it a bird?", ("bird", "birds", "feathers", "feathered")),
    "fish": ("Is it a fish?", ("fish", "fishes")),
    "insect": ("Is it an insect?", ("insect", "insects", "bug", "bugs")),
    "reptile": ("Is it a reptile?", ("reptile", "reptiles", "reptilian")),
    "plant": ("Is it a plant?", ("plant", "plants", "vegetation")),
    "food": (
        "Can you eat it?",
        ("eat", "eaten", "edible", "eatable", "food", "consume", "eat it", "!inedible"),
    ),
    "fruit": ("Is it a fruit?", ("fruit", "fruits")),
    "vegetable": ("Is it a vegetable?", ("vegetable", "vegetables", "veggie", "veg")),
    "sweet": ("Does it taste sweet?", ("sweet", "sugary", "dessert", "sugar")),
    "man_made": (
        "Is it man-made?",
        (
            "man made",
            "manmade",
            "artificial",
            "made people",
            "made humans",
            "human made",
            "manufactured",
            "made factory",
            "built people",
            "!natural",
            "!nature made",
        ),
    ),
    "electric": (
        "Does it use electricity?",
        (
            "electricity",
            "electric",
            "electrical",
            "electronic",
            "electronics",
            "battery",
            "batteries",
            "plug",
            "plugged",
            "power",
            "powered",
        ),
    ),
    "vehicle": (
        "Is it a vehicle?",
        ("vehicle", "vehicles", "transport", "transportation", "ride", "drive", "driven"),
    ),
    "tool": ("Is it a tool?", ("tool", "tools")),
    "furniture": ("Is it furniture?", ("furniture", "piece furniture")),
    "clothing": (
        "Is it something you wear?",
        ("wear", "worn", "clothing", "clothes", "garment", "wearable", "put on body"),
    ),
    "instrument": (
        "Is it a musical instrument?",
        ("instrument", "musical", "music", "play music"),
    ),
    "sport": ("Is it used in sports?", ("sport", "sports", "athletic", "athletics")),
    "toy": ("Is it a toy?", ("toy", "toys", "play with", "plaything")),
    "container": (
        "Is it a container?",
        ("container", "hold things", "store things", "put things in", "holds things"),
    ),
    "fly": ("Can it fly?", ("fly", "flies", "flying", "flight", "airborne", "fly air")),
    "water": (
        "Does it live in water?",
        (
            "water",
            "swim",
            "swims",
            "swimming",
            "aquatic",
            "ocean",
            "sea",
            "underwater",
            "river",
            "lake",
            "marine",
        ),
    ),
    "legs": ("Does it have legs?", ("legs", "leg", "legged")),
    "wheels": ("Does it have wheels?", ("wheel", "wheels", "wheeled")),
    "fur": ("Does it have fur?", ("fur", "furry", "hair", "hairy")),
    "wings": ("Does it have wings?", ("wing", "wings", "winged")),
    "tail": ("Does it have a tail?", ("tail", "tails")),
    "stripes": ("Does it have stripes?", ("stripes", "striped", "stripe", "stripy")),
    "pet": ("Is it a common pet?", ("pet", "pets", "companion animal")),
    "farm": ("Is it a farm animal?", ("farm", "livestock", "farm animal", "farmyard")),
    "meat": (
        "Does it eat meat?",
        (
            "eat meat",
            "eats meat",
            "carnivore",
            "carnivorous",
            "predator",
            "hunt",
            "hunts",
            "meat eater",
            "eat other animals",
            "eats other animals",
        ),
    ),
    "big": (
        "Is it bigger than a breadbox?",
        (
            "breadbox",
            "bread box",
            "big",
            "bigger",
            "large",
            "larger",
            "!small",
            "!smaller",
            "!tiny",
            "!little",
            "!fit hand",
            "!fits hand",
            "!fit pocket",
            "!fits pocket",
            "!hold hand",
        ),
    ),
    "huge": (
        "Is it bigger than a person?",
        (
            "than person",
            "than human",
            "than man",
            "than adult",
            "than me",
            "than you",
            "than people",
            "taller person",
            "than a person",
            "big as person",
            "!smaller than person",
            "!smaller than human",
            "!smaller than me",
            "!smaller than you",
        ),
    ),
    "giant": (
        "Is it bigger than a car?",
        ("than car", "than a car", "big as car", "size car", "!smaller than car"),
    ),
    "metal": ("Is it made of metal?", ("metal", "metallic", "steel", "iron")),
    "wood": ("Is it made of wood?", ("wood", "wooden", "timber")),
    "plastic": ("Is it made of plastic?", ("plastic", "plastics")),
    "glass": ("Is it made of glass?", ("glass",)),
    "fabric": (
        "Is it made of fabric?",
        ("fabric", "cloth", "cotton", "wool", "woolen", "textile"),
    ),
    "soft": ("Is it soft?", ("soft", "squishy", "fluffy", "!hard")),
    "sharp": ("Is it sharp?", ("sharp", "pointy", "pointed", "blade", "cut", "cuts")),
    "round": (
        "Is it round?",
        ("round", "spherical", "circular", "sphere", "circle", "ball shaped", "ball shape"),
    ),
    "kitchen": (
        "Is it used in the kitchen?",
        ("kitchen", "cook", "cooking", "cookware", "utensil", "eat with", "appliance"),
    ),
    "house": (
        "Is it usually found inside a house?",
        ("house", "home", "indoors", "indoor", "inside", "household"),
    ),
    "outdoors": ("Is it usually found outdoors?", ("outdoors", "outside", "outdoor", "wild")),
    "green": ("Is it green?", ("green",)),
    "red": ("Is it red?", ("red",)),
    "yellow": ("Is it yellow?", ("yellow",)),
    "engine": ("Does it have an engine?", ("engine", "motor", "fuel", "gas", "gasoline")),
    "screen": ("Does it have a screen?", ("screen", "display", "monitor")),
    "eggs": ("Does it lay eggs?", ("lay eggs", "lays eggs", "eggs", "egg laying")),
    "trees": (
        "Does it grow on trees?",
        ("grow on trees", "grows on trees", "grow tree", "grows tree", "on tree", "on trees"),
    ),
    "write": (
        "Is it used for writing?",
        ("write", "writing", "writes", "draw", "drawing", "draws"),
    ),
}


class KnownObject(NamedTuple):
    """One object of the knowledge base."""

    name: str
    aliases: tuple[str, ...]
    true: frozenset[str]
    unknown: frozenset[str]


# Templates: "@name" in an object's attribute list adds the template's attributes,
# "-attr" removes one again.
_TEMPLATES: dict[str, tuple[str, str]] = {
    "mammal": ("alive animal mammal fur legs tail", ""),
    "bird": ("alive animal bird wings legs tail eggs fly outdoors", ""),
    "fish": ("alive animal fish water tail eggs", ""),
    "insect": ("alive animal insect legs eggs outdoors", ""),
    "reptile": ("alive animal reptile eggs legs tail", ""),
    "plant": ("alive plant outdoors", ""),
    "fruit": ("food fruit sweet", "alive plant kitchen house"),
    "veg": ("food vegetable", "alive plant kitchen house"),
    "dish": ("food", "man_made kitchen house"),
    "thing": ("man_made house", ""),
    "vehicle": ("man_made vehicle outdoors big", ""),
    "clothes": ("man_made clothing house", ""),
    "instrument": ("man_made instrument house", ""),
}

# name | aliases (comma-separated) | attributes | unknown attributes
_TABLE = """
dog | puppy,hound | @mammal pet meat big | house outdoors
cat | kitten,kitty | @mammal pet meat house | big outdoors
horse | stallion,mare | @mammal farm big huge outdoors |
cow | cattle,bull | @mammal farm big huge outdoors | food giant
pig | hog,swine,piglet | @mammal farm big outdoors | food huge meat
sheep | lamb,ewe | @mammal farm big outdoors | food
goat | | @mammal farm big outdoors |
rabbit | bunny | @mammal pet outdoors | big house
mouse | mice | @mammal outdoors | pet house
hamster | | @mammal pet house |
lion | lioness | @mammal meat big huge outdoors | yellow
tiger | | @mammal meat big huge outdoors stripes |
elephant | | @mammal big huge giant outdoors | fur
giraffe | | @mammal big huge outdoors | giant yellow
zebra | | @mammal big huge outdoors stripes |
bear | grizzly,grizzly bear,brown bear | @mammal meat big huge outdoors |
monkey | | @mammal big outdoors | meat
whale | | @mammal -fur -legs water big huge giant meat outdoors |
dolphin | porpoise | @mammal -fur -legs water big huge meat outdoors |
bat | | @mammal fly wings outdoors | meat
squirrel | chipmunk | @mammal outdoors |
fox | | @mammal meat big outdoors red |
wolf | wolves | @mammal meat big outdoors |
deer | reindeer,moose | @mammal big outdoors | huge
kangaroo | | @mammal big outdoors |
camel | | @mammal big huge outdoors | farm
panda | giant panda,panda bear | @mammal big outdoors | huge meat
koala | koala bear | @mammal -tail outdoors |
hippo | hippopotamus | @mammal big huge outdoors | giant water fur
rhino | rhinoceros | @mammal big huge outdoors | giant fur
gorilla | | @mammal -tail big huge outdoors |
skunk | | @mammal outdoors stripes | meat
raccoon | | @mammal outdoors meat | stripes
chicken | hen,rooster,chick | @bird farm food | fly meat
duck | | @bird water | farm food
eagle | hawk,falcon | @bird meat big |
owl | | @bird meat | big
penguin | | @bird -fly water meat | big
parrot | | @bird pet | green house outdoors
ostrich | emu | @bird -fly big huge |
pigeon | dove | @bird |
swan | | @bird water big |
turkey | | @bird farm food big | fly
flamingo | | @bird water big | red
peacock | peafowl | @bird big | green
crow | raven | @bird | meat
goldfish | | @fish pet house | yellow
shark | | @fish meat big huge outdoors | giant
salmon | | @fish food meat big outdoors | red
tuna | | @fish food meat big outdoors | huge
octopus | squid | alive animal water eggs meat outdoors | legs big food
crab | | alive animal water eggs legs meat food outdoors | red
lobster | | alive animal water eggs legs meat food tail outdoors | red
shrimp | prawn | alive animal water eggs legs tail food outdoors |
jellyfish | | alive animal water eggs meat soft outdoors |
starfish | sea star | alive animal water eggs meat outdoors | legs
snake | | alive animal reptile eggs meat tail outdoors |
turtle | tortoise | @reptile outdoors | water pet green
crocodile | alligator | @reptile meat water big huge outdoors | giant green
lizard | gecko,iguana | @reptile outdoors | pet meat green
frog | toad | alive animal eggs legs water outdoors | green meat
bee | honeybee,bumblebee | @insect wings fly stripes yellow |
butterfly | moth | @insect wings fly |
ant | | @insect | meat
mosquito | | @insect wings fly | meat
ladybug | ladybird | @insect wings fly red | round
grasshopper | cricket | @insect wings fly green |
spider | tarantula | alive animal legs eggs meat | house outdoors
worm | earthworm | alive animal outdoors soft | eggs
snail | slug | alive animal eggs outdoors | soft
rose | | @plant red | sharp
sunflower | | @plant yellow big | huge green
tulip | | @plant | red
cactus | | @plant green sharp | house
oak tree | oak | @plant wood big huge giant | green
pine tree | pine,fir,christmas tree | @plant wood big huge giant green | sharp
grass | lawn | @plant green | soft
mushroom | toadstool | alive food outdoors | vegetable
bamboo | | @plant green big huge | wood
apple | | @fruit trees round | red green
banana | | @fruit yellow | trees
orange | | @fruit trees round |
lemon | | @fruit -sweet trees yellow | round
strawberry | | @fruit red |
grapes | grape | @fruit round | green
watermelon | | @fruit green | round big
pineapple | | @fruit | yellow sharp
cherry | | @fruit trees red round |
pear | | @fruit trees | green
coconut | | @fruit trees round | sweet
blueberry | | @fruit round |
mango | | @fruit trees | yellow red
carrot | | @veg | sweet
potato | | @veg | round
tomato | | @veg red round | fruit
broccoli | | @veg green |
onion | | @veg round |
corn | maize,sweetcorn | @veg yellow | sweet
lettuce | | @veg green | soft
pumpkin | | @veg round | fruit big
cucumber | | @veg green | fruit
bread | loaf | @dish soft |
cheese | | @dish | yellow soft
egg | eggs | food | alive kitchen house round
pizza | | @dish round |
ice cream | icecream | @dish sweet | soft
chocolate | | @dish sweet |
cake | | @dish sweet soft | round
honey | | food sweet yellow | kitchen house
rice | | food | kitchen house
cookie | biscuit | @dish sweet round |
sandwich | | @dish |
popcorn | | @dish | sweet yellow
milk | | food | kitchen house sweet
peanut | peanuts | food | kitchen house alive plant
chair | stool | @thing furniture legs big | wood plastic
table | desk | @thing furniture legs big | wood huge
bed | | @thing furniture legs big huge soft | wood fabric
sofa | couch | @thing furniture legs big soft fabric | huge
lamp | | @thing electric | big
clock | | @thing | electric round
mirror | | @thing glass |
pillow | cushion | @thing soft fabric |
door | | @thing big huge | wood
window | | @thing glass big |
candle | | @thing | round
key | keys | man_made metal | house
umbrella | | man_made | fabric outdoors house
toothbrush | | @thing plastic |
soap | | @thing | soft
book | | @thing |
pencil | | @thing wood write | sharp
pen | | @thing plastic write |
scissors | | @thing tool sharp metal | kitchen
bottle | | man_made container | glass plastic kitchen house
cup | mug | @thing container kitchen | round
plate | dish | @thing kitchen round |
fork | | @thing kitchen metal | sharp
knife | | @thing kitchen metal sharp | tool
spoon | | @thing kitchen metal |
pot | saucepan,pan | @thing kitchen metal container | round
refrigerator | fridge | @thing electric kitchen big huge | metal container engine
microwave | microwave oven | @thing electric kitchen big | metal screen
toaster | | @thing electric kitchen metal | big
television | tv,television set | @thing electric screen big | plastic
computer | laptop | @thing electric screen | plastic big
phone | smartphone,cell phone,mobile phone,cellphone | man_made electric screen | plastic house
camera | | man_made electric | screen plastic house
washing machine | washer | @thing electric big metal | engine
vacuum cleaner | vacuum,hoover | @thing electric big | engine wheels plastic tool
fan | | @thing electric | plastic engine
light bulb | lightbulb,bulb | @thing electric glass | round
remote control | remote | @thing electric plastic |
headphones | earphones,headset | man_made electric | clothing plastic house
hammer | | man_made tool metal | wood house
screwdriver | | man_made tool metal | sharp plastic house
saw | | man_made tool metal sharp | house
shovel | spade | man_made tool metal outdoors big |
axe | ax | man_made tool metal sharp | wood outdoors big
ladder | | man_made big huge | tool metal legs house outdoors
wrench | spanner | man_made tool metal | house
drill | | man_made tool electric | metal plastic house
rope | | man_made | fabric tool house
broom | | @thing big | tool wood
car | automobile | @vehicle wheels engine metal huge | electric
bicycle | bike | @vehicle wheels metal | sport
motorcycle | motorbike | @vehicle wheels engine metal | huge
bus | | @vehicle wheels engine metal huge giant | yellow
truck | lorry | @vehicle wheels engine metal huge giant |
airplane | plane,aeroplane,jet,airliner | @vehicle wings fly engine metal huge giant tail |
helicopter | | @vehicle fly engine metal huge | giant
boat | | @vehicle water huge | engine wood giant
ship | | @vehicle water engine metal huge giant | wood
train | | @vehicle wheels engine metal huge giant | electric
submarine | | @vehicle water engine metal huge giant |
skateboard | | man_made wheels sport wood outdoors | vehicle toy plastic big
rocket | spaceship | man_made fly engine metal big huge giant outdoors | vehicle
tractor | | @vehicle wheels engine metal huge | green red
fire truck | fire engine | @vehicle wheels engine metal huge giant red |
hat | cap | @clothes | fabric soft round
shoe | shoes,sneaker,boot | @clothes |
shirt | t-shirt,tshirt,blouse | @clothes fabric soft | big
sock | socks | @clothes fabric soft |
glove | gloves,mitten | @clothes | fabric soft
jacket | coat | @clothes fabric big | soft
glasses | eyeglasses,spectacles,sunglasses | man_made clothing | glass plastic house
watch | wristwatch | man_made clothing | electric metal round house
ring | | man_made clothing metal round | house
backpack | bag,rucksack | man_made container fabric | big clothing house
dress | gown | @clothes fabric soft big |
piano | | @instrument big huge wood | legs
guitar | | @instrument big wood |
violin | fiddle | @instrument wood | big
drum | drums | @instrument round | big wood
trumpet | | @instrument metal | yellow
flute | | @instrument metal |
soccer ball | football | man_made sport round outdoors | toy
basketball | | man_made sport round | outdoors
tennis racket | racket,racquet | man_made sport | metal outdoors
baseball bat | | man_made sport wood | metal outdoors
kite | | man_made toy fly outdoors | fabric tail
teddy bear | teddy,stuffed animal | @thing toy soft fabric | fur
doll | | @thing toy | plastic
balloon | balloons | man_made toy round | fly soft red house
house | home | man_made big huge giant outdoors | wood
rock | stone,pebble | outdoors | round
tent | | man_made fabric outdoors big huge |
bench | | man_made furniture legs outdoors big | wood metal
flag | | man_made fabric outdoors |
coin | coins | man_made metal round | house
wallet | purse | man_made container | house
"""


def _expand(spec: str) -> set[str]:
    out: set[str] = set()
    for word in spec.split():
        if word.startswith("@"):
            out |= set(_TEMPLATES[word[1:]][0].split())
        elif word.startswith("-"):
            out.discard(word[1:])
        else:
            out.add(word)
    return out


def _build() -> tuple[KnownObject, ...]:
    objects = []
    for line in _TABLE.strip().splitlines():
        name, aliases, true_spec, unknown_spec = (part.strip() for part in line.split("|"))
        explicit = set(unknown_spec.split())
        true = _expand(true_spec) - explicit
        unknown = set(explicit)
        for word in true_spec.split():
            if word.startswith("@"):
                unknown |= set(_TEMPLATES[word[1:]][1].split()) - true
        objects.append(
            KnownObject(
                name,
                tuple(a for a in aliases.split(",") if a),
                frozenset(true),
                frozenset(unknown),
            )
        )
    return tuple(objects)


OBJECTS: tuple[KnownObject, ...] = _build()
"""Every object of the knowledge base, in table order."""
