# Loupe's still-image helper (internal/media/stills.go): kept running, it
# reads one JSON request a line on stdin and answers one JSON line on
# stdout. Pillow (Debian's python3-pil) does what vipsthumbnail does for a
# plain JPEG — renditions at most N pixels on the longer side, never
# enlarged, turned upright by the EXIF orientation, metadata stripped —
# without starting a process per photo.
#
# Request: {"in": path, "outs": [{"path": p, "size": n, "format": "JPEG"|"WEBP", "quality": q}, ...]}
#   each output is made from the one before (the first from the input), as
#   the general path chains vipsthumbnail.
# Answer: {"sizes": [[w, h], ...]} or {"error": "..."}; a first line
# {"ready": true} says it started.
import json
import sys

from PIL import Image

# The caller bounds the pixels (it read the header); draft mode decodes at
# a fraction of them.
Image.MAX_IMAGE_PIXELS = None


# The EXIF orientations and what turns them upright (as ImageOps.exif_transpose).
TURNS = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def fit(w, h, size):
    """The size vips' thumbnail makes: the longer side at most size."""
    scale = min(1.0, size / w, size / h)
    return max(1, round(w * scale)), max(1, round(h * scale))


def render(req):
    with Image.open(req["in"]) as src:
        if src.format != "JPEG" or src.mode not in ("RGB", "L"):
            raise ValueError("not a plain JPEG (%s %s)" % (src.format, src.mode))
        first = req["outs"][0]["size"]
        # Decode at the smallest DCT scale that is still at least the
        # first output (libjpeg's shrink-on-load, as libvips does).
        src.draft(src.mode, fit(src.width, src.height, first))
        orientation = src.getexif().get(0x0112, 1)
        img = src.convert(src.mode)
    sizes = []
    for out in req["outs"]:
        # Resized before it is turned: the same pixels, fewer to move.
        w, h = (img.height, img.width) if orientation in (5, 6, 7, 8) else (img.width, img.height)
        tw, th = fit(w, h, out["size"])
        if orientation in (5, 6, 7, 8):
            tw, th = th, tw
        if (tw, th) != img.size:
            img = img.resize((tw, th), Image.LANCZOS, reducing_gap=2.0)
        if orientation in TURNS:
            img = img.transpose(TURNS[orientation])
            orientation = 1
        if out["format"] == "WEBP":
            img.save(out["path"], "WEBP", quality=out["quality"], method=4)
        else:
            img.save(out["path"], "JPEG", quality=out["quality"])
        sizes.append([img.width, img.height])
    return sizes


def main():
    # Said once it can work: the caller falls back to vipsthumbnail when
    # Pillow, or its WebP, is missing.
    from PIL import features

    if not features.check("webp"):
        sys.exit("Pillow has no WebP")
    sys.stdout.write('{"ready": true}\n')
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            answer = {"sizes": render(json.loads(line))}
        except Exception as e:  # the answer says why; the helper lives on
            answer = {"error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
