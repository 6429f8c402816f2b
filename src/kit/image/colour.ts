/**
 * Validation of user-supplied colour strings (the `background` option), without loading sharp:
 * the options schema must work where sharp is not installed (the HTTP API describes it).
 *
 * The accepted grammar is a strict subset of what sharp's colour parser understands, so a
 * string that passes here never makes sharp throw: CSS named colours, `transparent`,
 * hex (#rgb, #rgba, #rrggbb, #rrggbbaa) and `rgb()`/`rgba()` with numeric components.
 */

const CSS_COLOUR_NAMES = new Set(
  `aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown
  burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan
  darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred
  darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink
  deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold
  goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki lavender lavenderblush
  lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow lightgray lightgreen lightgrey
  lightpink lightsalmon lightseagreen lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime
  limegreen linen magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
  mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin
  navajowhite navy oldlace olive olivedrab orange orangered orchid palegoldenrod palegreen paleturquoise
  palevioletred papayawhip peachpuff peru pink plum powderblue purple rebeccapurple red rosybrown royalblue
  saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue slateblue slategray slategrey snow
  springgreen steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen
  transparent`.split(/\s+/),
);

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NUMBER = String.raw`\s*\d{1,3}(?:\.\d+)?%?\s*`;
const ALPHA = String.raw`\s*(?:0|1|0?\.\d+|\d{1,3}%)\s*`;
const RGB = new RegExp(String.raw`^rgb\((${NUMBER}),(${NUMBER}),(${NUMBER})\)$`, 'i');
const RGBA = new RegExp(String.raw`^rgba\((${NUMBER}),(${NUMBER}),(${NUMBER}),${ALPHA}\)$`, 'i');

/** Whether each rgb component is within range (0..255, or 0..100%). */
function componentsInRange(parts: readonly (string | undefined)[]): boolean {
  return parts.every((part) => {
    const text = (part ?? '').trim();
    const value = Number.parseFloat(text);
    return text.endsWith('%') ? value <= 100 : value <= 255;
  });
}

/** True when `value` is a colour string this project accepts (and sharp can parse). */
export function isColourString(value: string): boolean {
  const text = value.trim();
  if (text.length === 0 || text.length > 64) return false;
  if (HEX.test(text) || CSS_COLOUR_NAMES.has(text.toLowerCase())) return true;
  const match = RGB.exec(text) ?? RGBA.exec(text);
  return match !== null && componentsInRange(match.slice(1, 4));
}

/** Every accepted colour name, for tests and API descriptions. */
export const COLOUR_NAMES: ReadonlySet<string> = CSS_COLOUR_NAMES;
