#!/usr/bin/python3
"""Writes the image metrics' fixtures with PIL: a 64x48 scene (shapes on a
gradient) as RGB PNG, a darker copy, a higher-contrast copy, a mirrored copy,
a palette copy, a grey copy, a JPEG, a smaller copy, a green-background pair
and a text-on-the-left image."""
from PIL import Image, ImageDraw, ImageEnhance, ImageOps

W, H = 64, 48
scene = Image.new("RGB", (W, H))
px = scene.load()
for y in range(H):
    for x in range(W):
        px[x, y] = (40 + 3 * x, 60 + 2 * y, 120)
d = ImageDraw.Draw(scene)
d.rectangle([8, 8, 28, 30], fill=(230, 200, 30))
d.ellipse([34, 12, 58, 40], fill=(20, 40, 200))
d.line([0, 44, 63, 20], fill=(255, 255, 255), width=2)
scene.save("scene.png")
ImageEnhance.Brightness(scene).enhance(0.7).save("scene-darker.png")
ImageEnhance.Contrast(scene).enhance(1.5).save("scene-contrast.png")
ImageOps.mirror(scene).save("scene-mirrored.png")
scene.convert("P", palette=Image.ADAPTIVE, colors=64).save("scene-palette.png")
scene.convert("L").save("scene-grey.png")
scene.save("scene.jpg", quality=90)
scene.resize((48, 36), Image.LANCZOS).save("scene-small.png")
other = Image.new("RGB", (W, H), (128, 128, 128))
ImageDraw.Draw(other).rectangle([30, 0, 63, 47], fill=(250, 250, 250))
other.save("other.png")

# Green background: the expected image is black where the subject is and
# white elsewhere (square: OSWorld indexes it [x, y]).
mask = Image.new("RGB", (32, 32), (255, 255, 255))
ImageDraw.Draw(mask).rectangle([8, 8, 23, 23], fill=(0, 0, 0))
mask.save("green-mask.png")
green = Image.new("RGB", (32, 32), (20, 200, 30))
ImageDraw.Draw(green).rectangle([8, 8, 23, 23], fill=(200, 50, 50))
green.save("green-yes.png")
notgreen = green.copy()
ImageDraw.Draw(notgreen).rectangle([0, 0, 3, 3], fill=(200, 200, 200))
notgreen.save("green-no.png")

text = Image.new("RGB", (100, 40), (255, 255, 255))
ImageDraw.Draw(text).text((2, 10), "Hello", fill=(0, 0, 0))
text.save("text-left.png")
text2 = Image.new("RGB", (100, 40), (255, 255, 255))
ImageDraw.Draw(text2).text((40, 10), "Hello", fill=(0, 0, 0))
text2.save("text-middle.png")
