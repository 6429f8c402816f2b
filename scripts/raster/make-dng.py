"""Writes fixtures/fixture.dng: a synthetic Digital Negative made with tifffile (python3-tifffile).

No camera is involved: the rose photo (a binary PPM given as argv[1]) is turned into what a sensor
behind an RGGB Bayer filter would record (linear light, 12-bit, one colour per photosite), and
written with the tags the DNG 1.4 specification requires for a CFA image: DNGVersion,
UniqueCameraModel, the CFA pattern, black and white levels, a colour matrix (XYZ D65 -> camera,
the camera here having sRGB primaries) and the as-shot neutral. LibRaw develops it back into
(approximately) the rose. Usage: python3 make-dng.py rose.ppm fixture.dng
"""
import sys

import numpy
import tifffile


def read_ppm(path):
    data = open(path, "rb").read()
    fields = data.split(maxsplit=4)
    assert fields[0] == b"P6" and fields[3] == b"255", "a binary 8-bit PPM is expected"
    width, height = int(fields[1]), int(fields[2])
    pixels = numpy.frombuffer(fields[4][: width * height * 3], dtype=numpy.uint8)
    return pixels.reshape(height, width, 3)


def mosaic(rgb):
    # sRGB -> linear light -> 12 bits, then one channel per photosite: R G / G B.
    linear = (rgb / 255.0) ** 2.2 * 4095.0
    height, width = rgb.shape[:2]
    cfa = numpy.zeros((height, width), dtype=numpy.uint16)
    cfa[0::2, 0::2] = linear[0::2, 0::2, 0]
    cfa[0::2, 1::2] = linear[0::2, 1::2, 1]
    cfa[1::2, 0::2] = linear[1::2, 0::2, 1]
    cfa[1::2, 1::2] = linear[1::2, 1::2, 2]
    return cfa


def srational(values):
    out = []
    for value in values:
        out += [int(round(value * 10000)), 10000]
    return out


XYZ_TO_SRGB = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]

rgb = read_ppm(sys.argv[1])
tags = [
    (50706, "B", 4, (1, 4, 0, 0), True),  # DNGVersion
    (50707, "B", 4, (1, 1, 0, 0), True),  # DNGBackwardVersion
    (50708, "s", 0, "fileconv synthetic Bayer", True),  # UniqueCameraModel
    (33421, "H", 2, (2, 2), True),  # CFARepeatPatternDim
    (33422, "B", 4, (0, 1, 1, 2), True),  # CFAPattern: R G G B
    (50714, "I", 1, 0, True),  # BlackLevel
    (50717, "I", 1, 4095, True),  # WhiteLevel
    (50721, "2i", 9, srational(XYZ_TO_SRGB), True),  # ColorMatrix1 (SRATIONAL, as pairs)
    (50778, "H", 1, 21, True),  # CalibrationIlluminant1: D65
    (50728, "2I", 3, (1, 1, 1, 1, 1, 1), True),  # AsShotNeutral (RATIONAL)
]
tifffile.imwrite(
    sys.argv[2],
    mosaic(rgb),
    photometric=32803,  # CFA
    subfiletype=0,
    software=False,
    extratags=tags,
)
