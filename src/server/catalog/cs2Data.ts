/**
 * CS2 reference data for the sandbox catalog, as compact tables: weapons and
 * their finishes, knives, gloves, stickers, charms and sticker slabs. Names,
 * grades and float ranges follow the game; paint indices are the game's where
 * known and plausible otherwise (the sandbox only needs them to be stable).
 */

/** Grade of a finish: Consumer, Industrial, Mil-Spec, Restricted, cLassified, coVert, and X = covert of the Dragon Lore class. */
export type Grade = 'C' | 'I' | 'M' | 'R' | 'L' | 'V' | 'X';
/** Where a weapon finish drops: c = case (StatTrak™ exists), s = souvenir collection, x = collection only. */
export type Source = 'c' | 's' | 'x';
/** [finish, grade, paint index, source, min float, max float]; the float range defaults to 0–1. */
export type SkinRow = readonly [name: string, grade: Grade, paintIndex: number, source: Source, minFloat?: number, maxFloat?: number];

export interface WeaponDef {
  readonly name: string;
  /** Relative popularity of the weapon on the market. */
  readonly weight: number;
  readonly skins: readonly SkinRow[];
}

export const WEAR_NAMES = ['Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred'] as const;
export type WearName = (typeof WEAR_NAMES)[number];
/** Float bounds of each wear, [min, max): index-aligned with WEAR_NAMES. */
export const WEAR_BOUNDS: readonly (readonly [number, number])[] = [
  [0, 0.07],
  [0.07, 0.15],
  [0.15, 0.38],
  [0.38, 0.45],
  [0.45, 1],
];

export const WEAPONS: readonly WeaponDef[] = [
  { name: 'AK-47', weight: 10, skins: [
    ['Redline', 'L', 282, 'c', 0.1, 0.7], ['Asiimov', 'V', 801, 'c', 0.05, 0.7], ['Vulcan', 'V', 302, 'c', 0, 0.9],
    ['Fire Serpent', 'X', 180, 'c', 0.06, 0.76], ['Case Hardened', 'L', 44, 'c'], ['Bloodsport', 'V', 639, 'c', 0, 0.45],
    ['Neon Rider', 'V', 707, 'c', 0, 0.8], ['The Empress', 'V', 675, 'c'], ['Slate', 'R', 1035, 'c'],
    ['Phantom Disruptor', 'L', 941, 'c'], ['Wild Lotus', 'X', 724, 'x'], ['Gold Arabesque', 'X', 1171, 's'],
    ['Fuel Injector', 'V', 524, 'c'], ['Frontside Misty', 'L', 490, 'c', 0.02, 0.87], ['Point Disarray', 'L', 506, 'c', 0, 0.67],
    ['Aquamarine Revenge', 'V', 474, 'c', 0, 0.69], ['Jaguar', 'V', 316, 'c'], ['Hydroponic', 'L', 456, 'x', 0, 0.5],
    ['Elite Build', 'M', 422, 'c'], ['Safari Mesh', 'I', 72, 's', 0.06, 0.8], ['Ice Coaled', 'L', 1141, 'c'],
    ['Nightwish', 'V', 1143, 'c'], ['Head Shot', 'V', 1221, 'c'], ['Inheritance', 'V', 1209, 'c'], ['Uncharted', 'M', 1087, 'c'],
    ['Blue Laminate', 'R', 226, 'x', 0.02, 0.4], ['Jet Set', 'L', 340, 'x', 0.1, 1], ['Legion of Anubis', 'V', 959, 'c'],
  ] },
  { name: 'M4A4', weight: 6, skins: [
    ['Howl', 'X', 309, 'c', 0, 0.4], ['Asiimov', 'V', 255, 'c', 0.18, 1], ['The Emperor', 'V', 844, 'c'],
    ['Neo-Noir', 'V', 695, 'c'], ['Desolate Space', 'L', 588, 'c'], ['Buzz Kill', 'V', 632, 'c'],
    ['Hellfire', 'L', 664, 'c'], ['Dragon King', 'L', 400, 'c', 0, 0.75], ['Royal Paladin', 'L', 512, 'c'],
    ['Evil Daimyo', 'R', 480, 'c', 0, 0.52], ['Tooth Fairy', 'L', 971, 'c'], ['In Living Color', 'V', 1149, 'c'],
    ['Temukau', 'V', 1255, 'c'], ['Spider Lily', 'R', 1097, 'c'], ['Desert-Strike', 'L', 336, 'c'],
    ['Griffin', 'R', 384, 'c'], ['X-Ray', 'L', 215, 'c'], ['Poseidon', 'L', 449, 'x', 0, 0.33],
    ['Daybreak', 'L', 471, 'x'], ['Urban DDPAT', 'C', 17, 's', 0.06, 0.8], ['Tornado', 'I', 101, 's'],
    ['Bullet Rain', 'L', 155, 'c'], ['Cyber Security', 'V', 985, 'c'], ['Magnesium', 'M', 811, 'c'],
  ] },
  { name: 'M4A1-S', weight: 6, skins: [
    ['Hyper Beast', 'V', 430, 'c'], ['Printstream', 'V', 984, 'c'], ['Golden Coil', 'V', 497, 'c'],
    ["Chantico's Fire", 'V', 548, 'c', 0, 0.99], ['Mecha Industries', 'L', 587, 'c'], ['Decimator', 'L', 644, 'c'],
    ['Knight', 'L', 326, 'x', 0, 0.1], ['Hot Rod', 'L', 445, 'x', 0, 0.08], ['Icarus Fell', 'L', 440, 'x', 0, 0.1],
    ['Master Piece', 'L', 321, 'c'], ['Player Two', 'V', 1058, 'c'], ['Blue Phosphor', 'L', 1059, 'x', 0, 0.08],
    ['Nitro', 'R', 254, 'c'], ['Guardian', 'R', 257, 'c'], ['Dark Water', 'R', 60, 'c', 0.1, 0.26],
    ['Atomic Alloy', 'R', 301, 'c'], ['Basilisk', 'R', 383, 'c'], ['Leaded Glass', 'R', 681, 'c'],
    ['Nightmare', 'L', 714, 'c'], ['Welcome to the Jungle', 'V', 1073, 's'], ['Boreal Forest', 'I', 77, 's', 0.06, 0.8],
    ['Black Lotus', 'R', 1130, 'c'], ['Emphorosaur-S', 'R', 1166, 'c'], ['Cyrex', 'L', 360, 'c'],
  ] },
  { name: 'AWP', weight: 9, skins: [
    ['Dragon Lore', 'X', 344, 's', 0, 0.7], ['Gungnir', 'X', 756, 'x', 0, 0.7], ['Medusa', 'X', 446, 'x'],
    ['The Prince', 'V', 736, 'c'], ['Asiimov', 'V', 279, 'c', 0.18, 1], ['Lightning Strike', 'V', 51, 'c', 0, 0.08],
    ['Hyper Beast', 'V', 475, 'c'], ['Containment Breach', 'V', 887, 'c'], ['Wildfire', 'V', 917, 'c'],
    ['Neo-Noir', 'L', 803, 'c'], ['Redline', 'L', 259, 'c', 0.1, 0.7], ['Graphite', 'L', 212, 'c', 0, 0.12],
    ['Electric Hive', 'L', 227, 'c'], ['BOOM', 'L', 174, 'c', 0.06, 0.28], ["Man-o'-war", 'L', 395, 'c', 0.1, 0.2],
    ['Fever Dream', 'L', 640, 'c'], ['Atheris', 'R', 838, 'c'], ['Elite Build', 'R', 525, 'c'],
    ['Worm God', 'R', 424, 'c'], ['Pit Viper', 'R', 251, 's'], ['Safari Mesh', 'I', 72, 's', 0.06, 0.8],
    ['Sun in Leo', 'R', 451, 'x'], ['Desert Hydra', 'V', 1170, 's'], ['Chromatic Aberration', 'V', 1144, 'c'],
    ['Duality', 'L', 1222, 'c'], ['Exoskeleton', 'R', 1026, 'c'], ['Capillary', 'R', 943, 'c'],
    ['Oni Taiji', 'V', 662, 'c'], ['Mortis', 'L', 691, 'c'], ['PAW', 'R', 975, 'c'],
    ['Pink DDPAT', 'I', 84, 's', 0.06, 0.8], ['Corticera', 'L', 184, 'c', 0, 0.3], ['Silk Tiger', 'V', 1029, 'c'],
  ] },
  { name: 'Desert Eagle', weight: 6, skins: [
    ['Blaze', 'R', 37, 'x', 0, 0.08], ['Printstream', 'V', 1088, 'c'], ['Code Red', 'V', 711, 'c'],
    ['Kumicho Dragon', 'L', 527, 'c'], ['Golden Koi', 'L', 185, 'c', 0, 0.12], ['Hypnotic', 'L', 61, 'c', 0, 0.08],
    ['Conspiracy', 'R', 351, 'c'], ['Cobalt Disruption', 'R', 231, 'c', 0, 0.2], ['Mecha Industries', 'R', 805, 'c'],
    ['Ocean Drive', 'V', 1050, 'c'], ['Hand Cannon', 'R', 328, 's'], ['Sunset Storm 壱', 'R', 469, 'x'],
    ['Emerald Jörmungandr', 'R', 757, 'x'], ['Fennec Fox', 'V', 1054, 'x'], ['Oxide Blaze', 'M', 645, 'c'],
    ['Light Rail', 'R', 1006, 'c'], ['Trigger Discipline', 'R', 1090, 'c'], ['Crimson Web', 'L', 12, 'c', 0.06, 0.8],
    ['Heirloom', 'L', 273, 'c'], ['Corinthian', 'R', 509, 'c'], ['Directive', 'M', 603, 'c'],
    ['Naga', 'R', 397, 'c'], ['Mudder', 'I', 90, 's', 0.06, 0.8], ['Urban Rubble', 'C', 237, 's'],
  ] },
  { name: 'Glock-18', weight: 6, skins: [
    ['Fade', 'R', 38, 'x', 0, 0.08], ['Water Elemental', 'L', 353, 'c'], ['Wasteland Rebel', 'V', 586, 'c'],
    ['Twilight Galaxy', 'L', 437, 'c', 0, 0.2], ['Bullet Queen', 'L', 957, 'c'], ['Gamma Doppler', 'V', 1119, 'c', 0, 0.08],
    ['Neo-Noir', 'L', 988, 'c'], ['Vogue', 'L', 963, 'c'], ['Dragon Tattoo', 'R', 48, 'c', 0, 0.08],
    ['Moonrise', 'R', 694, 'c'], ['Brass', 'R', 159, 'c'], ['Reactor', 'R', 367, 's'],
    ['Weasel', 'R', 732, 'c'], ['Candy Apple', 'M', 3, 'x', 0, 0.3], ['Grinder', 'M', 381, 'c'],
    ['Steel Disruption', 'M', 230, 'c', 0, 0.2], ['Groundwater', 'C', 2, 's'], ['Sand Dune', 'C', 208, 's', 0.06, 0.8],
    ['Night', 'I', 40, 's', 0.06, 0.8], ['Snack Attack', 'L', 1208, 'c'], ['Umbral Rabbit', 'L', 1227, 'c'],
    ['Shinobu', 'R', 1199, 'c'],
  ] },
  { name: 'USP-S', weight: 6, skins: [
    ['Kill Confirmed', 'V', 504, 'c'], ['Neo-Noir', 'V', 653, 'c'], ['Printstream', 'V', 1142, 'c'],
    ['The Traitor', 'V', 1040, 'c'], ['Orion', 'L', 313, 'c', 0, 0.5], ['Caiman', 'L', 339, 'c', 0, 0.3],
    ['Cortex', 'L', 705, 'c'], ['Serum', 'L', 221, 'c', 0, 0.25], ['Cyrex', 'L', 637, 'c'],
    ['Overgrowth', 'R', 183, 'x'], ['Guardian', 'R', 290, 'c'], ['Dark Water', 'R', 60, 'c', 0.1, 0.26],
    ['Blueprint', 'R', 657, 'c'], ['Torque', 'M', 489, 'c'], ['Stainless', 'M', 277, 'c'],
    ['Road Rash', 'R', 318, 'c'], ['Whiteout', 'L', 1070, 'x'], ['Ticket to Hell', 'L', 1205, 'c'],
    ['Forest Leaves', 'C', 25, 's', 0.06, 0.8], ['Night Ops', 'I', 236, 's'],
  ] },
  { name: 'P250', weight: 3, skins: [
    ['See Ya Later', 'V', 678, 'c'], ['Asiimov', 'L', 551, 'c', 0.1, 1], ['Mehndi', 'L', 258, 'c'],
    ['Muertos', 'L', 404, 'c'], ['Undertow', 'R', 271, 'c'], ['Cartel', 'R', 388, 'c'],
    ['Franklin', 'L', 295, 'x'], ['Sand Dune', 'C', 208, 's', 0.06, 0.8], ['Boreal Forest', 'C', 77, 's', 0.06, 0.8],
    ['Supernova', 'M', 358, 'c'], ['Splash', 'M', 162, 'c'], ['Valence', 'M', 426, 'c'],
    ['Nevermore', 'M', 1150, 'c'], ['Visions', 'L', 1223, 'c'], ['Hive', 'M', 219, 's'],
    ['Bone Mask', 'C', 27, 's'], ['Gunsmoke', 'I', 15, 's'], ['Metallic DDPAT', 'I', 34, 's'],
  ] },
  { name: 'Five-SeveN', weight: 2, skins: [
    ['Hyper Beast', 'L', 660, 'c'], ['Fowl Play', 'L', 352, 'c'], ['Case Hardened', 'R', 44, 'c'],
    ['Monkey Business', 'L', 427, 'c'], ['Angry Mob', 'V', 837, 'c'], ['Fairy Tale', 'L', 1083, 'c'],
    ['Copper Galaxy', 'R', 274, 'c'], ['Triumvirate', 'R', 530, 'c'], ['Retrobution', 'M', 510, 'c'],
    ['Forest Night', 'C', 78, 's'], ['Orange Peel', 'I', 141, 's'], ['Kami', 'R', 265, 'c', 0, 0.3],
    ['Nightshade', 'R', 223, 'x'], ['Silver Quartz', 'I', 252, 'x', 0, 0.5], ['Candy Apple', 'I', 3, 'x', 0, 0.3],
    ['Boost Protocol', 'R', 1128, 'c'],
  ] },
  { name: 'Tec-9', weight: 2, skins: [
    ['Fuel Injector', 'L', 614, 'c'], ['Nuclear Threat', 'R', 179, 'x'], ['Isaac', 'R', 303, 'c'],
    ['Avalanche', 'R', 520, 'c'], ['Remote Control', 'L', 722, 'c'], ['Decimator', 'L', 1010, 'c'],
    ['Re-Entry', 'R', 555, 'c'], ['Titanium Bit', 'M', 272, 'c'], ['Sandstorm', 'M', 264, 'c'],
    ['Red Quartz', 'M', 248, 'c', 0, 0.5], ['Groundwater', 'I', 2, 's'], ['Toxic', 'R', 374, 'x'],
    ['Bamboo Forest', 'C', 235, 's'], ['Army Mesh', 'C', 242, 's'], ['Rebel', 'L', 1235, 'c'],
  ] },
  { name: 'CZ75-Auto', weight: 2, skins: [
    ['Victoria', 'L', 270, 'c'], ['Yellow Jacket', 'R', 476, 'c'], ['Xiangliu', 'L', 643, 'c'],
    ['The Fuschia Is Now', 'R', 269, 'c'], ['Red Astor', 'R', 315, 'c'], ['Tigris', 'R', 350, 'c'],
    ['Pole Position', 'R', 435, 'c'], ['Emerald', 'R', 453, 'x'], ['Tread Plate', 'M', 268, 'c'],
    ['Chalice', 'R', 325, 'x', 0, 0.3], ['Hexane', 'M', 218, 'c'], ['Eco', 'M', 622, 'c'],
    ['Tuxedo', 'C', 297, 's'], ['Army Sheen', 'C', 298, 's'], ['Crimson Web', 'R', 12, 'c', 0.06, 0.8],
  ] },
  { name: 'Dual Berettas', weight: 2, skins: [
    ['Cobra Strike', 'L', 658, 'c'], ['Twin Turbo', 'L', 1126, 'c'], ['Hemoglobin', 'R', 220, 'c'],
    ['Urban Shock', 'R', 396, 'c'], ['Royal Consorts', 'R', 625, 'c'], ['Dualing Dragons', 'M', 491, 'c'],
    ['Cartel', 'R', 528, 'c'], ['Marina', 'R', 261, 'x'], ['Panther', 'R', 276, 'c'],
    ['Demolition', 'M', 153, 'x'], ['Contractor', 'C', 46, 's'], ['Colony', 'C', 47, 's'],
    ['Stained', 'I', 43, 's'], ['Melondrama', 'R', 1156, 'c'], ['Flora Carnivora', 'R', 1178, 'c'],
  ] },
  { name: 'P2000', weight: 2, skins: [
    ['Fire Elemental', 'L', 389, 'c'], ['Imperial Dragon', 'L', 591, 'c'], ['Ocean Foam', 'R', 211, 'c', 0, 0.08],
    ['Corticera', 'R', 184, 'c'], ['Handgun', 'M', 485, 'c'], ['Ivory', 'M', 357, 'c'],
    ['Amber Fade', 'R', 246, 's'], ['Chainmail', 'R', 327, 'x'], ['Scorpion', 'R', 71, 'c'],
    ['Grassland', 'C', 95, 's'], ['Granite Marbleized', 'I', 21, 's'], ['Silver', 'M', 32, 'x', 0, 0.08],
    ['Acid Etched', 'R', 1118, 'c'], ['Wicked Sick', 'L', 1133, 'c'],
  ] },
  { name: 'R8 Revolver', weight: 1, skins: [
    ['Fade', 'R', 522, 'c', 0, 0.08], ['Amber Fade', 'R', 523, 'c'], ['Llama Cannon', 'L', 683, 'c'],
    ['Reboot', 'M', 595, 'c'], ['Crimson Web', 'R', 12, 'c', 0.06, 0.8], ['Skull Crusher', 'R', 843, 'c'],
    ['Banana Cannon', 'L', 1136, 'c'], ['Bone Mask', 'C', 27, 's'], ['Grip', 'M', 701, 'c'],
    ['Survivalist', 'M', 721, 'c'], ['Canal Spray', 'I', 1045, 's'], ['Crazy 8', 'R', 1206, 'c'],
  ] },
  { name: 'FAMAS', weight: 2, skins: [
    ['Roll Cage', 'L', 604, 'c'], ['Commemoration', 'L', 919, 'c'], ['Djinn', 'L', 429, 'c'],
    ['Mecha Industries', 'R', 626, 'c'], ['Afterimage', 'L', 154, 'c'], ['Pulse', 'R', 260, 'c'],
    ['Valence', 'M', 529, 'c'], ['Eye of Athena', 'R', 1025, 'c'], ['Styx', 'R', 371, 'x'],
    ['Hexane', 'M', 218, 'c'], ['Colony', 'C', 47, 's'], ['Cyanospatter', 'C', 92, 's'],
    ['Spitfire', 'R', 194, 'c'], ['Sergeant', 'M', 288, 'c'], ['Rapid Eye Movement', 'L', 1121, 'c'],
  ] },
  { name: 'Galil AR', weight: 2, skins: [
    ['Chatterbox', 'L', 398, 'c'], ['Eco', 'L', 428, 'c'], ['Cerberus', 'R', 379, 'x'],
    ['Sugar Rush', 'R', 661, 'c'], ['Firefight', 'R', 546, 'c'], ['Signal', 'R', 1013, 'c'],
    ['Crimson Tsunami', 'R', 647, 'c'], ['Stone Cold', 'M', 494, 'c'], ['Rocket Pop', 'M', 478, 'c'],
    ['Orange DDPAT', 'I', 460, 's'], ['Sage Spray', 'C', 119, 's'], ['Hunting Blind', 'C', 241, 's'],
    ['Chromatic Aberration', 'L', 1152, 'c'], ['Phoenix Blacklight', 'R', 1127, 'c'], ['Kami', 'R', 308, 'c'],
  ] },
  { name: 'SG 553', weight: 2, skins: [
    ['Integrale', 'L', 1063, 'x'], ['Cyrex', 'L', 487, 'c'], ['Pulse', 'R', 287, 'c'],
    ['Tiger Moth', 'R', 613, 'c'], ['Bulldozer', 'R', 39, 'x'], ['Danger Close', 'L', 1004, 'c'],
    ['Phantom', 'R', 686, 'c'], ['Dragon Tech', 'L', 1172, 'c'], ['Damascus Steel', 'M', 247, 's'],
    ['Aerial', 'M', 598, 'c'], ['Wave Spray', 'C', 186, 's'], ['Army Sheen', 'C', 298, 's'],
    ['Ultraviolet', 'M', 98, 'c'], ['Colony IV', 'R', 897, 'c'],
  ] },
  { name: 'AUG', weight: 2, skins: [
    ['Akihabara Accept', 'V', 455, 'x'], ['Chameleon', 'L', 280, 'c'], ['Bengal Tiger', 'L', 9, 'c'],
    ['Syd Mead', 'L', 601, 'c'], ['Torque', 'R', 305, 'c'], ['Momentum', 'L', 886, 'c'],
    ['Hot Rod', 'R', 33, 'x', 0, 0.08], ['Fleet Flock', 'R', 541, 'c'], ['Stymphalian', 'R', 690, 'c'],
    ['Wings', 'M', 73, 'c'], ['Ricochet', 'M', 507, 'c'], ['Storm', 'C', 100, 's'],
    ['Condemned', 'C', 110, 's'], ['Radiation Hazard', 'R', 167, 's'], ['Flame Jörmungandr', 'L', 758, 'x'],
    ['Death by Puppy', 'R', 1210, 'c'],
  ] },
  { name: 'SSG 08', weight: 2, skins: [
    ['Dragonfire', 'L', 624, 'c'], ['Blood in the Water', 'V', 222, 'c', 0.06, 0.2], ['Big Iron', 'R', 503, 'c'],
    ['Detour', 'R', 319, 's'], ['Ghost Crusher', 'R', 1060, 'c'], ["Death's Head", 'M', 554, 'c'],
    ['Necropos', 'M', 538, 'c'], ['Abyss', 'M', 361, 'c'], ['Acid Fade', 'R', 253, 'x', 0, 0.08],
    ['Sand Dune', 'C', 208, 's', 0.06, 0.8], ['Blue Spruce', 'C', 96, 's'], ['Lichen Dashed', 'C', 26, 's'],
    ['Bloodshot', 'R', 1113, 'c'], ['Turbo Peek', 'R', 1135, 'c'],
  ] },
  { name: 'SCAR-20', weight: 1, skins: [
    ['Cardiac', 'R', 391, 'c'], ['Bloodsport', 'L', 597, 'c'], ['Emerald', 'L', 196, 'x'],
    ['Cyrex', 'R', 312, 'c'], ['Splash Jam', 'R', 165, 'x'], ['Crimson Web', 'R', 232, 'c', 0.06, 0.8],
    ['Enforcer', 'R', 954, 'c'], ['Grotto', 'M', 406, 'c'], ['Jungle Slipstream', 'M', 685, 'c'],
    ['Powercore', 'M', 896, 'c'], ['Sand Mesh', 'C', 116, 's'], ['Storm', 'C', 100, 's'],
    ['Contractor', 'C', 46, 's'],
  ] },
  { name: 'G3SG1', weight: 1, skins: [
    ['The Executioner', 'R', 511, 'c'], ['Chronos', 'L', 438, 'x'], ['Flux', 'R', 493, 'c'],
    ['Stinger', 'M', 628, 'c'], ['Murky', 'M', 382, 'c'], ['Azure Zebra', 'R', 229, 'c'],
    ['Hunter', 'M', 677, 'c'], ['High Seas', 'M', 712, 'c'], ['Demeter', 'R', 195, 'x'],
    ['Safari Mesh', 'I', 72, 's', 0.06, 0.8], ['Desert Storm', 'C', 8, 's'], ['Jungle Dashed', 'C', 147, 's'],
    ['Scavenger', 'R', 806, 'c'],
  ] },
  { name: 'MAC-10', weight: 3, skins: [
    ['Neon Rider', 'L', 433, 'c'], ['Stalker', 'L', 498, 'c'], ['Disco Tech', 'L', 1042, 'c'],
    ['Fade', 'R', 38, 'x', 0, 0.08], ['Curse', 'R', 310, 'c'], ['Heat', 'R', 284, 'c'],
    ['Malachite', 'R', 402, 'c'], ['Graven', 'R', 188, 'c'], ['Tatter', 'M', 337, 'c'],
    ['Ultraviolet', 'M', 98, 'c'], ['Candy Apple', 'M', 3, 'x', 0, 0.3], ['Silver', 'I', 32, 'x', 0, 0.08],
    ['Urban DDPAT', 'C', 17, 's'], ['Commuter', 'C', 343, 's'], ['Toybox', 'L', 1024, 'c'],
    ['Sakkaku', 'L', 1122, 'c'], ['Gold Brick', 'L', 1089, 'x'], ['Hot Snakes', 'R', 1140, 'c'],
  ] },
  { name: 'MP9', weight: 2, skins: [
    ['Hydra', 'L', 734, 'c'], ['Starlight Protector', 'L', 1037, 'c'], ['Rose Iron', 'R', 262, 'c'],
    ['Airlock', 'R', 609, 'c'], ['Bulldozer', 'R', 39, 'x'], ['Ruby Poison Dart', 'R', 403, 'c'],
    ['Wild Lily', 'L', 1071, 'x'], ['Hypnotic', 'R', 61, 'x', 0, 0.08], ['Dart', 'M', 386, 'c'],
    ['Deadly Poison', 'M', 448, 'c'], ['Sand Dashed', 'C', 148, 's'], ['Orange Peel', 'C', 141, 's'],
    ['Storm', 'C', 100, 's'], ['Food Chain', 'L', 1145, 'c'], ['Mount Fuji', 'L', 1093, 'x'],
    ['Featherweight', 'R', 1215, 'c'],
  ] },
  { name: 'MP7', weight: 2, skins: [
    ['Nemesis', 'L', 481, 'c'], ['Bloodsport', 'L', 696, 'c'], ['Fade', 'R', 752, 'x', 0, 0.08],
    ['Impire', 'R', 536, 'c'], ['Special Delivery', 'R', 500, 'c'], ['Powercore', 'R', 1002, 'c'],
    ['Abyssal Apparition', 'L', 1096, 'c'], ['Skulls', 'M', 11, 'c'], ['Urban Hazard', 'M', 354, 'c'],
    ['Armor Core', 'M', 423, 'c'], ['Ocean Foam', 'R', 213, 'c', 0, 0.08], ['Army Recon', 'C', 245, 's'],
    ['Forest DDPAT', 'C', 5, 's'], ['Gunsmoke', 'C', 15, 's'], ['Whiteout', 'R', 102, 'x'],
  ] },
  { name: 'MP5-SD', weight: 1, skins: [
    ['Phosphor', 'L', 810, 'c'], ['Gauss', 'R', 846, 'c'], ['Lab Rats', 'M', 800, 'c'],
    ['Agent', 'R', 915, 'c'], ['Kitbash', 'R', 1007, 'c'], ['Liquidation', 'L', 1104, 'c'],
    ['Oxide Oasis', 'R', 1074, 'x'], ['Desert Strike', 'M', 781, 's'], ['Dirt Drop', 'C', 782, 's'],
    ['Bamboo Garden', 'C', 783, 's'], ['Condition Zero', 'L', 1168, 'c'],
  ] },
  { name: 'UMP-45', weight: 2, skins: [
    ['Primal Saber', 'L', 556, 'c'], ['Momentum', 'L', 851, 'c'], ['Blaze', 'R', 37, 'x', 0, 0.08],
    ['Arctic Wolf', 'R', 704, 'c'], ['Grand Prix', 'R', 436, 'c'], ['Exposure', 'M', 688, 'c'],
    ['Riot', 'M', 392, 'c'], ['Labyrinth', 'M', 362, 'c'], ['Corporal', 'M', 281, 'c'],
    ['Scorched', 'C', 175, 's'], ['Urban DDPAT', 'C', 17, 's'], ['Gunsmoke', 'C', 15, 's'],
    ['Wild Child', 'L', 1055, 'c'], ['Motorized', 'R', 1125, 'c'],
  ] },
  { name: 'P90', weight: 2, skins: [
    ['Asiimov', 'L', 359, 'c', 0, 0.92], ['Death by Kitty', 'L', 156, 'c'], ['Emerald Dragon', 'L', 182, 'x'],
    ['Trigon', 'L', 283, 'c'], ['Shapewood', 'R', 516, 'c'], ['Cold Blooded', 'R', 67, 'x', 0, 0.08],
    ['Shallow Grave', 'R', 636, 'c'], ['Nostalgia', 'L', 1053, 'c'], ['Elite Build', 'M', 486, 'c'],
    ['Module', 'M', 335, 'c'], ['Virus', 'M', 20, 'c'], ['Sand Spray', 'C', 124, 's'],
    ['Storm', 'C', 100, 's'], ['Run and Hide', 'L', 1224, 'c'], ['Neoqueen', 'L', 1100, 'c'],
  ] },
  { name: 'PP-Bizon', weight: 1, skins: [
    ['Judgement of Anubis', 'L', 542, 'c'], ['High Roller', 'R', 676, 'c'], ['Fuel Rod', 'R', 508, 'c'],
    ['Osiris', 'R', 349, 'c'], ['Embargo', 'R', 973, 'c'], ['Antique', 'R', 306, 'c'],
    ['Blue Streak', 'M', 13, 'c'], ['Water Sigil', 'M', 224, 'c'], ['Night Ops', 'C', 236, 's'],
    ['Sand Dashed', 'C', 148, 's'], ['Urban Dashed', 'C', 149, 's'], ['Brass', 'M', 159, 'x'],
    ['Space Cat', 'R', 1160, 'c'],
  ] },
  { name: 'Nova', weight: 1, skins: [
    ['Hyper Beast', 'L', 537, 'c'], ['Antique', 'R', 286, 'c'], ['Bloomstick', 'L', 62, 'c'],
    ['Koi', 'R', 356, 'c'], ['Toy Soldier', 'R', 716, 'c'], ['Wild Six', 'R', 634, 'c'],
    ['Rising Skull', 'R', 263, 'c'], ['Graphite', 'R', 214, 'c', 0, 0.12], ['Tempest', 'M', 191, 'c'],
    ['Ranger', 'M', 299, 'c'], ['Predator', 'C', 170, 's'], ['Sand Dune', 'C', 208, 's'],
    ['Polar Mesh', 'C', 107, 's'], ['Walnut', 'C', 158, 's'], ['Gila', 'M', 746, 'c'],
  ] },
  { name: 'XM1014', weight: 1, skins: [
    ['Tranquility', 'L', 393, 'c'], ['Incinegator', 'L', 1008, 'c'], ['Seasons', 'R', 654, 'c'],
    ['Ziggy', 'R', 557, 'c'], ['Entombed', 'R', 850, 'c'], ['Black Tie', 'R', 689, 'c'],
    ['Teclu Burner', 'M', 521, 'c'], ['Heaven Guard', 'M', 314, 'c'], ['Bone Machine', 'M', 370, 'c'],
    ['Blue Spruce', 'C', 96, 's'], ['Grassland', 'C', 95, 's'], ['Urban Perforated', 'C', 135, 's'],
    ['Jungle', 'C', 169, 's'], ['Red Python', 'R', 320, 'c'],
  ] },
  { name: 'MAG-7', weight: 1, skins: [
    ['Justice', 'L', 948, 'c'], ['Bulldozer', 'R', 39, 'x'], ['Heat', 'R', 431, 'c'],
    ['Memento', 'R', 737, 'c'], ['Praetorian', 'R', 535, 'c'], ['Petroglyph', 'R', 666, 'c'],
    ['Sonar', 'M', 703, 'c'], ['Firestarter', 'M', 385, 'c'], ['Irradiated Alert', 'C', 171, 's'],
    ['Sand Dune', 'C', 208, 's'], ['Storm', 'C', 100, 's'], ['Metallic DDPAT', 'C', 34, 's'],
    ['Hazard', 'R', 198, 'x'], ['Cinquedea', 'L', 787, 'x'],
  ] },
  { name: 'Sawed-Off', weight: 1, skins: [
    ['The Kraken', 'L', 256, 'c'], ['Devourer', 'L', 720, 'c'], ['Wasteland Princess', 'L', 638, 'c'],
    ['Highwayman', 'R', 390, 'c'], ['Serenity', 'R', 405, 'c'], ['Limelight', 'R', 596, 'c'],
    ['Orange DDPAT', 'C', 83, 's'], ['Sage Spray', 'C', 119, 's'], ['Forest DDPAT', 'C', 5, 's'],
    ['Snake Camo', 'C', 30, 's'], ['Zander', 'M', 517, 'c'], ['Origami', 'M', 434, 'c'],
    ['Copper', 'I', 41, 'x'],
  ] },
  { name: 'M249', weight: 1, skins: [
    ['Emerald Poison Dart', 'L', 648, 'c'], ['Nebula Crusader', 'R', 496, 'c'], ['Aztec', 'M', 1005, 'c'],
    ['Magma', 'R', 266, 'c'], ['System Lock', 'M', 401, 'c'], ['Spectre', 'M', 547, 'c'],
    ['Contrast Spray', 'C', 22, 's'], ['Gator Mesh', 'C', 75, 's'], ['Jungle DDPAT', 'C', 202, 's'],
    ['Downtown', 'R', 1148, 'c'], ['Deep Relief', 'R', 1082, 'c'],
  ] },
  { name: 'Negev', weight: 1, skins: [
    ['Mjölnir', 'L', 763, 'x'], ['Power Loader', 'R', 514, 'c'], ['Loudmouth', 'R', 610, 'c'],
    ['Bratatat', 'R', 317, 'c'], ['Lionfish', 'M', 698, 'c'], ['Dazzle', 'M', 610, 'c'],
    ["Man-o'-war", 'M', 432, 'c'], ['Desert-Strike', 'M', 355, 'c'], ['Army Sheen', 'C', 298, 's'],
    ['Palm', 'C', 201, 's'], ['CaliCamo', 'C', 240, 's'], ['Ultralight', 'R', 958, 'c'],
    ['Prototype', 'M', 1124, 'c'],
  ] },
  { name: 'Zeus x27', weight: 1, skins: [
    ['Olympus', 'L', 1229, 'c'], ['Electric Blue', 'R', 1230, 'c'], ['Tosai', 'R', 1231, 'c'],
    ['Dragon Snore', 'L', 1232, 'c'], ['Swamp DDPAT', 'C', 1233, 's'], ['Charged Up', 'M', 1234, 'c'],
  ] },
];

/** Silhouette class of a weapon's item image (svg.ts). */
export type WeaponClass = 'pistol' | 'smg' | 'rifle' | 'sniper' | 'shotgun' | 'machinegun';

/** The class of every weapon in WEAPONS, by name. */
export const WEAPON_CLASSES: Readonly<Record<string, WeaponClass>> = {
  'AK-47': 'rifle', 'M4A4': 'rifle', 'M4A1-S': 'rifle', 'FAMAS': 'rifle', 'Galil AR': 'rifle', 'SG 553': 'rifle', 'AUG': 'rifle',
  'AWP': 'sniper', 'SSG 08': 'sniper', 'SCAR-20': 'sniper', 'G3SG1': 'sniper',
  'Desert Eagle': 'pistol', 'Glock-18': 'pistol', 'USP-S': 'pistol', 'P250': 'pistol', 'Five-SeveN': 'pistol', 'Tec-9': 'pistol',
  'CZ75-Auto': 'pistol', 'Dual Berettas': 'pistol', 'P2000': 'pistol', 'R8 Revolver': 'pistol', 'Zeus x27': 'pistol',
  'MAC-10': 'smg', 'MP9': 'smg', 'MP7': 'smg', 'MP5-SD': 'smg', 'UMP-45': 'smg', 'P90': 'smg', 'PP-Bizon': 'smg',
  'Nova': 'shotgun', 'XM1014': 'shotgun', 'MAG-7': 'shotgun', 'Sawed-Off': 'shotgun',
  'M249': 'machinegun', 'Negev': 'machinegun',
};

// ---- Knives

export type KnifeSet = 'original' | 'chroma' | 'gamma';

export interface KnifeDef {
  readonly name: string;
  /** Typical Field-Tested price of a mid finish, USD cents. */
  readonly base: number;
  readonly weight: number;
  readonly sets: readonly KnifeSet[];
  /** Newer knives call the Night finish "Night Stripe". */
  readonly newer: boolean;
}

const ALL_SETS: readonly KnifeSet[] = ['original', 'chroma', 'gamma'];
const CHROMA_SETS: readonly KnifeSet[] = ['original', 'chroma'];
const ORIGINAL_SET: readonly KnifeSet[] = ['original'];

export const KNIVES: readonly KnifeDef[] = [
  { name: 'Karambit', base: 60_000, weight: 10, sets: ALL_SETS, newer: false },
  { name: 'Butterfly Knife', base: 70_000, weight: 8, sets: CHROMA_SETS, newer: false },
  { name: 'M9 Bayonet', base: 45_000, weight: 8, sets: ALL_SETS, newer: false },
  { name: 'Bayonet', base: 30_000, weight: 6, sets: ALL_SETS, newer: false },
  { name: 'Flip Knife', base: 20_000, weight: 6, sets: ALL_SETS, newer: false },
  { name: 'Gut Knife', base: 10_000, weight: 5, sets: ALL_SETS, newer: false },
  { name: 'Huntsman Knife', base: 15_000, weight: 4, sets: CHROMA_SETS, newer: false },
  { name: 'Falchion Knife', base: 12_000, weight: 4, sets: CHROMA_SETS, newer: false },
  { name: 'Shadow Daggers', base: 9_000, weight: 4, sets: CHROMA_SETS, newer: false },
  { name: 'Bowie Knife', base: 11_000, weight: 3, sets: CHROMA_SETS, newer: false },
  { name: 'Talon Knife', base: 40_000, weight: 5, sets: CHROMA_SETS, newer: true },
  { name: 'Skeleton Knife', base: 35_000, weight: 4, sets: ORIGINAL_SET, newer: true },
  { name: 'Stiletto Knife', base: 25_000, weight: 4, sets: CHROMA_SETS, newer: true },
  { name: 'Ursus Knife', base: 13_000, weight: 3, sets: CHROMA_SETS, newer: true },
  { name: 'Navaja Knife', base: 9_000, weight: 3, sets: CHROMA_SETS, newer: true },
  { name: 'Nomad Knife', base: 22_000, weight: 3, sets: ORIGINAL_SET, newer: true },
  { name: 'Paracord Knife', base: 16_000, weight: 3, sets: ORIGINAL_SET, newer: true },
  { name: 'Survival Knife', base: 14_000, weight: 3, sets: ORIGINAL_SET, newer: true },
  { name: 'Classic Knife', base: 25_000, weight: 4, sets: ORIGINAL_SET, newer: true },
  { name: 'Kukri Knife', base: 20_000, weight: 3, sets: ORIGINAL_SET, newer: true },
];

/** [finish, paint index, set, price multiplier, pick weight, min float, max float]; `null` finish = vanilla (no wear, no float). */
export type KnifeFinishRow = readonly [name: string | null, paintIndex: number, set: KnifeSet, priceMult: number, weight: number, minFloat: number, maxFloat: number];

export const KNIFE_FINISHES: readonly KnifeFinishRow[] = [
  [null, 0, 'original', 1.0, 6, 0, 0],
  ['Fade', 38, 'original', 1.8, 5, 0, 0.08],
  ['Crimson Web', 12, 'original', 1.4, 4, 0.06, 0.8],
  ['Case Hardened', 44, 'original', 1.1, 5, 0, 1],
  ['Slaughter', 59, 'original', 1.3, 4, 0.01, 0.26],
  ['Blue Steel', 42, 'original', 0.85, 4, 0, 1],
  ['Safari Mesh', 72, 'original', 0.55, 5, 0.06, 0.8],
  ['Night', 40, 'original', 0.75, 4, 0.06, 0.8],
  ['Urban Masked', 143, 'original', 0.6, 5, 0.06, 0.8],
  ['Boreal Forest', 77, 'original', 0.6, 5, 0.06, 0.8],
  ['Forest DDPAT', 5, 'original', 0.6, 5, 0.06, 0.8],
  ['Scorched', 175, 'original', 0.55, 5, 0.06, 0.8],
  ['Stained', 43, 'original', 0.7, 4, 0, 1],
  ['Doppler', 418, 'chroma', 1.5, 6, 0, 0.08],
  ['Marble Fade', 413, 'chroma', 1.6, 4, 0, 0.08],
  ['Tiger Tooth', 409, 'chroma', 1.3, 4, 0, 0.08],
  ['Damascus Steel', 411, 'chroma', 0.85, 4, 0.01, 1],
  ['Rust Coat', 414, 'chroma', 0.7, 3, 0.4, 1],
  ['Ultraviolet', 98, 'chroma', 0.8, 4, 0.06, 0.8],
  ['Gamma Doppler', 569, 'gamma', 1.7, 5, 0, 0.08],
  ['Lore', 558, 'gamma', 1.4, 3, 0, 0.65],
  ['Autotronic', 573, 'gamma', 1.2, 3, 0, 0.8],
  ['Black Laminate', 563, 'gamma', 0.8, 3, 0, 0.75],
  ['Bright Water', 578, 'gamma', 0.75, 3, 0, 0.5],
  ['Freehand', 580, 'gamma', 0.8, 3, 0, 0.48],
];

/** Paint index of "Night Stripe", the newer knives' name for Night. */
export const NIGHT_STRIPE_PAINT_INDEX = 735;

/** [phase label, paint index, pick weight, min price multiplier, max price multiplier] (multipliers relative to a normal phase). */
export type PhaseRow = readonly [label: string, paintIndex: number, weight: number, minMult: number, maxMult: number];

export const DOPPLER_PHASES: readonly PhaseRow[] = [
  ['Phase 1', 418, 24, 1, 1.05],
  ['Phase 2', 419, 24, 1.1, 1.2],
  ['Phase 3', 420, 23, 0.95, 1],
  ['Phase 4', 421, 23, 1.05, 1.15],
  ['Ruby', 415, 2, 6, 8],
  ['Sapphire', 416, 1.5, 6.5, 9],
  ['Black Pearl', 417, 2.5, 4.5, 6],
];

export const GAMMA_DOPPLER_PHASES: readonly PhaseRow[] = [
  ['Phase 1', 569, 23.5, 1, 1.1],
  ['Phase 2', 570, 23.5, 1.1, 1.25],
  ['Phase 3', 571, 23.5, 0.95, 1],
  ['Phase 4', 572, 23.5, 1, 1.1],
  ['Emerald', 568, 6, 2.8, 3.6],
];

export const PHASES_BY_FINISH: Readonly<Record<string, readonly PhaseRow[]>> = {
  Doppler: DOPPLER_PHASES,
  'Gamma Doppler': GAMMA_DOPPLER_PHASES,
};

// ---- Gloves (float range 0.06–0.80, no StatTrak™, no Souvenir)

/** [finish, paint index, price multiplier]. */
export type GloveFinishRow = readonly [name: string, paintIndex: number, priceMult: number];

export interface GloveDef {
  readonly name: string;
  readonly base: number;
  readonly finishes: readonly GloveFinishRow[];
}

export const GLOVE_FLOAT_RANGE: readonly [number, number] = [0.06, 0.8];

export const GLOVES: readonly GloveDef[] = [
  { name: 'Sport Gloves', base: 30_000, finishes: [
    ["Pandora's Box", 10037, 4], ['Vice', 10048, 3], ['Hedge Maze', 10038, 2.5], ['Superconductor', 10018, 2.2],
    ['Amphibious', 10045, 1.6], ['Omega', 10047, 1.5], ['Bronze Morph', 10046, 0.5], ['Arid', 10019, 0.8],
    ['Slingshot', 10073, 1.2], ['Big Game', 10074, 0.9], ['Scarlet Shamagh', 10075, 0.8], ['Nocts', 10076, 1.3],
  ] },
  { name: 'Specialist Gloves', base: 22_000, finishes: [
    ['Crimson Kimono', 10033, 3], ['Emerald Web', 10034, 2], ['Fade', 10063, 2], ['Crimson Web', 10061, 1.3],
    ['Foundation', 10035, 0.7], ['Forest DDPAT', 10030, 0.5], ['Mogul', 10066, 0.8], ['Buckshot', 10062, 0.6],
    ['Marble Fade', 10081, 1.8], ['Tiger Strike', 10082, 1.1], ['Field Agent', 10083, 0.9], ['Lt. Commander', 10084, 0.9],
  ] },
  { name: 'Driver Gloves', base: 14_000, finishes: [
    ['King Snake', 10041, 1.8], ['Crimson Weave', 10016, 1.4], ['Imperial Plaid', 10042, 1.3], ['Lunar Weave', 10013, 0.8],
    ['Diamondback', 10040, 0.7], ['Overtake', 10043, 0.8], ['Racing Green', 10044, 0.6], ['Convoy', 10015, 0.6],
    ['Snow Leopard', 10070, 1.6], ['Black Tie', 10069, 1.2], ['Queen Jaguar', 10072, 1], ['Rezan the Red', 10071, 0.9],
  ] },
  { name: 'Hand Wraps', base: 13_000, finishes: [
    ['Cobalt Skulls', 10053, 1.5], ['Slaughter', 10021, 1.6], ['Overprint', 10054, 0.8], ['Leather', 10009, 0.6],
    ['Badlands', 10036, 0.7], ['Spruce DDPAT', 10010, 0.5], ['Arboreal', 10055, 0.6], ['Duct Tape', 10056, 0.6],
    ['CAUTION!', 10085, 1.5], ['Giraffe', 10086, 0.7], ['Constrictor', 10087, 0.7], ['Desert Shamagh', 10088, 0.6],
  ] },
  { name: 'Moto Gloves', base: 15_000, finishes: [
    ['Spearmint', 10026, 2], ['Cool Mint', 10028, 1.2], ['Boom!', 10027, 1], ['Eclipse', 10024, 0.8],
    ['Polygon', 10052, 1.1], ['Transport', 10049, 0.6], ['Turtle', 10050, 0.6], ['POW!', 10051, 1.3],
    ['Smoke Out', 10077, 0.7], ['Blood Pressure', 10078, 0.9], ['Finish Line', 10079, 0.8], ['3rd Commando Company', 10080, 0.7],
  ] },
  { name: 'Hydra Gloves', base: 9_000, finishes: [
    ['Case Hardened', 10060, 1.4], ['Emerald', 10057, 1.1], ['Rattler', 10059, 0.8], ['Mangrove', 10058, 0.7],
  ] },
  { name: 'Bloodhound Gloves', base: 11_000, finishes: [
    ['Charred', 10006, 1], ['Snakebite', 10007, 0.9], ['Bronzed', 10008, 0.8], ['Guerrilla', 10039, 0.7],
  ] },
  { name: 'Broken Fang Gloves', base: 10_000, finishes: [
    ['Jade', 10089, 1.3], ['Yellow-banded', 10090, 0.9], ['Needle Point', 10091, 0.8], ['Unhinged', 10092, 0.8],
  ] },
];

// ---- Stickers, patches, charms, sticker slabs

/** [full name, grade, typical price in USD cents]. */
export type SmallItemRow = readonly [name: string, grade: Grade, price: number];

export const STICKERS: readonly SmallItemRow[] = [
  ['Sticker | Titan (Holo) | Katowice 2014', 'R', 1_800_000],
  ['Sticker | iBUYPOWER (Holo) | Katowice 2014', 'R', 2_500_000],
  ['Sticker | Reason Gaming (Holo) | Katowice 2014', 'R', 900_000],
  ['Sticker | Dignitas (Holo) | Katowice 2014', 'R', 350_000],
  ['Sticker | LGB eSports (Holo) | Katowice 2014', 'R', 250_000],
  ['Sticker | Vox Eminor (Holo) | Katowice 2014', 'R', 200_000],
  ['Sticker | Team LDLC.com (Holo) | Katowice 2014', 'R', 300_000],
  ['Sticker | Natus Vincere (Holo) | Katowice 2014', 'R', 200_000],
  ['Sticker | Titan | Katowice 2014', 'M', 120_000],
  ['Sticker | Virtus.Pro (Holo) | Cologne 2014', 'R', 60_000],
  ['Sticker | Ninjas in Pyjamas (Holo) | Cologne 2014', 'R', 40_000],
  ['Sticker | Cloud9 (Holo) | Katowice 2015', 'R', 30_000],
  ['Sticker | Fnatic (Holo) | Katowice 2015', 'R', 25_000],
  ['Sticker | Team EnVyUs (Holo) | Cluj-Napoca 2015', 'R', 4_000],
  ['Sticker | Crown (Foil)', 'V', 180_000],
  ['Sticker | Howling Dawn', 'V', 120_000],
  ['Sticker | Headhunter (Foil)', 'L', 20_000],
  ['Sticker | Flammable (Foil)', 'L', 8_000],
  ['Sticker | Swag (Foil)', 'L', 9_000],
  ['Sticker | Battle Scarred (Holo)', 'R', 1_500],
  ['Sticker | Bish (Holo)', 'R', 4_000],
  ['Sticker | Bash (Holo)', 'R', 4_500],
  ['Sticker | Bosh (Holo)', 'R', 4_000],
  ['Sticker | Shooter (Foil)', 'L', 6_000],
  ['Sticker | Hello AK-47 (Gold)', 'L', 900],
  ['Sticker | Hello AWP (Gold)', 'L', 800],
  ['Sticker | Natus Vincere (Gold) | Stockholm 2021', 'L', 2_500],
  ['Sticker | s1mple (Gold) | Stockholm 2021', 'L', 3_000],
  ['Sticker | Natus Vincere (Holo) | Stockholm 2021', 'R', 300],
  ['Sticker | G2 Esports (Holo) | Stockholm 2021', 'R', 150],
  ['Sticker | Vitality (Holo) | Antwerp 2022', 'R', 120],
  ['Sticker | FaZe Clan (Gold) | Antwerp 2022', 'L', 1_800],
  ['Sticker | ropz (Gold) | Antwerp 2022', 'L', 900],
  ['Sticker | ZywOo (Gold) | Paris 2023', 'L', 1_200],
  ['Sticker | Vitality (Gold) | Paris 2023', 'L', 1_500],
  ['Sticker | Team Spirit (Holo) | Copenhagen 2024', 'R', 60],
  ['Sticker | Natus Vincere (Glitter) | Copenhagen 2024', 'R', 40],
  ['Sticker | MOUZ (Holo) | Shanghai 2024', 'R', 50],
  ['Sticker | donk (Gold) | Shanghai 2024', 'L', 900],
  ['Sticker | The MongolZ (Holo) | Austin 2025', 'R', 45],
  ['Sticker | Vitality (Holo) | Austin 2025', 'R', 55],
  ['Sticker | Vitality | Austin 2025', 'M', 8],
  ['Sticker | FaZe Clan | Antwerp 2022', 'M', 12],
  ['Sticker | Natus Vincere | Stockholm 2021', 'M', 20],
  ['Sticker | Good Game', 'M', 25],
  ['Sticker | Good Luck', 'M', 20],
  ['Sticker | Have Fun', 'M', 20],
  ['Sticker | Bomb Doge', 'M', 150],
  ['Sticker | Doomed', 'M', 40],
  ['Sticker | Winged Defuser', 'M', 300],
  ['Sticker | Flickshot', 'M', 60],
  ['Sticker | Kawaii Killer CT', 'M', 80],
  ['Sticker | Drug War Veteran', 'M', 90],
  ['Sticker | Harp of War (Holo)', 'R', 7_000],
  ['Sticker | Stay Frosty', 'M', 30],
  ['Sticker | Nice Shot', 'M', 35],
  ['Sticker | To B or not to B', 'M', 25],
  ['Sticker | Chabo', 'M', 20],
  ['Sticker | Cheongsam (Holo)', 'R', 900],
  ['Sticker | Welcome to the Clutch', 'M', 60],
  ['Patch | Metal The Boss', 'L', 300],
  ['Patch | Crazy Banana', 'M', 60],
  ['Patch | Easy Peasy', 'M', 40],
  ['Patch | Wildfire', 'R', 120],
  ['Patch | Phoenix', 'M', 50],
];

export const CHARMS: readonly SmallItemRow[] = [
  ['Charm | Die-cast AK', 'V', 4_000],
  ["Charm | Lil' Squirt", 'V', 3_000],
  ['Charm | Baby Karat T', 'V', 2_800],
  ['Charm | Baby Karat CT', 'V', 2_600],
  ['Charm | Hot Howl', 'L', 900],
  ['Charm | Hot Wurst', 'L', 700],
  ['Charm | Semi-Precious', 'L', 800],
  ["Charm | Lil' Cap Gun", 'R', 250],
  ['Charm | Titeenium AWP', 'R', 300],
  ['Charm | Pi', 'R', 200],
  ["Charm | Lil' Whiskers", 'R', 220],
  ["Charm | Lil' Teacup", 'M', 60],
  ["Charm | Lil' Sandy", 'M', 50],
  ["Charm | Lil' Crass", 'M', 40],
  ["Charm | Lil' Ava", 'M', 45],
  ["Charm | Chicken Lil'", 'M', 55],
  ["Charm | Lil' Monster", 'R', 180],
  ['Charm | Disco MAC', 'R', 160],
  ['Charm | Glamour Shot', 'L', 650],
  ['Charm | Pocket AWP', 'M', 70],
  ['Charm | Backsplash', 'M', 40],
  ["Charm | That's Bananas", 'R', 150],
  ["Charm | Lil' Squatch", 'L', 500],
  ["Charm | Lil' Tusk", 'M', 45],
  ['Charm | Diner Dog', 'L', 550],
  ["Charm | Lil' SAS", 'M', 40],
  ["Charm | Lil' Zen", 'R', 120],
  ['Charm | Whittle Knife', 'R', 140],
  ['Charm | Big Kev', 'L', 600],
  ['Charm | Hang Loose', 'M', 35],
];

export const SOUVENIR_CHARMS: readonly SmallItemRow[] = [
  ['Souvenir Charm | Austin 2025 Highlight | ZywOo Ace vs The MongolZ', 'R', 1_500],
  ['Souvenir Charm | Austin 2025 Highlight | ropz 1v3 Clutch', 'R', 900],
  ['Souvenir Charm | Austin 2025 Highlight | flameZ No-Scope', 'R', 700],
  ['Souvenir Charm | Austin 2025 Highlight | donk Deagle 4K', 'R', 1_100],
  ['Souvenir Charm | Austin 2025 Highlight | m0NESY AWP Triple', 'R', 800],
  ['Souvenir Charm | Austin 2025 Highlight | apEX Knife Kill', 'R', 650],
  ['Souvenir Charm | Austin 2025 Highlight | Spinx Retake', 'R', 500],
  ['Souvenir Charm | Austin 2025 Highlight | bLitz Entry 3K', 'R', 450],
];

/** Sticker slabs are keychains made from these stickers: `Sticker Slab | <sticker>`. */
export const SLAB_STICKERS: readonly string[] = [
  'Crown (Foil)', 'Howling Dawn', 'Headhunter (Foil)', 'Flammable (Foil)', 'Swag (Foil)', 'Bomb Doge', 'Winged Defuser',
  'Harp of War (Holo)', 'Cheongsam (Holo)', 'Kawaii Killer CT', 'Drug War Veteran', 'Shooter (Foil)', 'Good Game',
];
