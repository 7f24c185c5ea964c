"""Loupe's offline face detector (internal/analysis/engine/opencv, embedded there).

Kept running (a helper of a tool.Pool): once OpenCV is imported it says so,
{"ready": true}, then reads one JSON request a line on stdin:
  {"images": [path, ...], "minWidthRatio": r, "minConfidence": c,
   "cascade": haar.xml, "confirm": lbp.xml}
and answers each with one JSON line on stdout: {"faces": [[face, ...], ...]},
a list per image in the request's order, each face
  {"x": .., "y": .., "w": .., "h": .., "confidence": .., "descriptor": [..]}.
An image OpenCV cannot read answers an empty list; anything else that goes
wrong ends the helper with its traceback on stderr (the pool starts another).

Detection: Haar cascade (frontal face) on the equalised grey image, each
candidate confirmed by an LBP cascade run on the candidate's neighbourhood
scaled to a fixed size, then non-maximum suppression. The confidence is a
logistic on the Haar cascade's level weight (see confidence()).

Descriptor: uniform LBP histograms of the 64x64 equalised face over a 4x4
grid, mirror-symmetric, square-rooted, centred on the face's own mean cell
histogram and L2-normalised (see descriptor()).
"""

import json
import math
import sys

# Detection runs on images at most this wide (larger ones are scaled down
# for it, boxes scaled back): keyframes are proxies' frames, and a photo's
# faces are found as well at this size, in a fraction of the time.
MAX_DETECT_WIDTH = 1280
# The smallest face looked for, in pixels of the detection image (the Haar
# cascade's window is 24x24).
MIN_FACE = 24
# Confirmation: the candidate and a quarter of its width around it, scaled
# so that the face is CONFIRM_FACE pixels wide (the LBP cascade's window is
# 45x45: small faces need upscaling for it to see them).
CONFIRM_FACE = 96
# confidence(): the Haar cascade's last stage sum at which a candidate
# scores 0.5, and the logistic's scale (see confidence()).
WEIGHT_MID = 0.0
WEIGHT_SCALE = 1.5
# Descriptor geometry: the face's LBP is taken at FACE_SIZE x FACE_SIZE in
# a GRID x GRID grid of cells, from the face first brought to DETAIL x
# DETAIL, the detail a small face has, so that a close-up and a distant shot
# of one face describe alike. Measured on the test photos rescaled 0.25x to
# 1.5x: without that step a 33-pixel-wide face against the same face at
# 93 pixels scored 0.28; with it 0.84, and the worst same-face score rose
# from 0.28 to 0.63 (now the 10-degree rotation's) while the two persons'
# highest stayed at 0.44.
FACE_SIZE = 64
GRID = 4
DETAIL = 40


def confidence(weight):
    """Maps the Haar cascade's level weight to [0, 1].

    With outputRejectLevels, detectMultiScale3 answers for each (grouped)
    detection the sum of the cascade's last stage, the highest of its group;
    every detection passed that stage's threshold (-2.99 for
    haarcascade_frontalface_default), and the further above it the surer.
    Measured on the test images (skimage's astronaut, matplotlib's
    grace_hopper, rescaled 0.25x-1.5x, rotated +-10 degrees, mirrored,
    darkened, brightened, JPEG q20): the real faces weigh 1.3 to 8.7
    (mostly 3.5 to 7); the candidates the LBP cascade rejected (in those
    and in skimage's photos without faces: coins, cells, retina, moon,
    gravel, the Hubble deep field) -0.7 to 6.5, half of them under 1.2.
    The weight alone does not tell them apart, the confirmation does. A
    logistic centred on 0 with scale 1.5 puts every real face measured at
    0.70 or more (the astronaut 0.99, Grace Hopper 0.93) and candidates
    barely past the last stage (weight under 0) under 0.5.
    """
    return 1.0 / (1.0 + math.exp(-(weight - WEIGHT_MID) / WEIGHT_SCALE))


def uniform_table(np):
    """Maps the 256 8-neighbour LBP codes to the 58 uniform patterns (at most
    two 0/1 transitions around the circle) and 58 for all the others."""
    table = np.full(256, 58, np.uint8)
    k = 0
    for v in range(256):
        bits = [(v >> i) & 1 for i in range(8)]
        if sum(bits[i] != bits[(i + 1) % 8] for i in range(8)) <= 2:
            table[v] = k
            k += 1
    return table


class Detector:
    def __init__(self, cascade, confirm):
        import cv2
        import numpy as np

        self.cv2, self.np = cv2, np
        self.haar = cv2.CascadeClassifier(cascade)
        self.lbp = cv2.CascadeClassifier(confirm)
        if self.haar.empty() or self.lbp.empty():
            raise SystemExit("cannot load the cascades %s, %s" % (cascade, confirm))
        self.uniform = uniform_table(np)

    def faces(self, path, min_width_ratio, min_confidence):
        cv2, np = self.cv2, self.np
        try:
            image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        except cv2.error:
            image = None
        if image is None or image.size == 0:
            return []
        grey = cv2.equalizeHist(image)
        height, width = grey.shape
        scale = 1.0
        detect = grey
        if width > MAX_DETECT_WIDTH:
            scale = MAX_DETECT_WIDTH / width
            detect = cv2.equalizeHist(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))
        min_size = max(MIN_FACE, int(math.ceil(min_width_ratio * width * scale)))
        dh, dw = detect.shape
        if min_size > min(dh, dw):
            return []
        boxes, _, weights = self.haar.detectMultiScale3(
            detect, scaleFactor=1.1, minNeighbors=3, minSize=(min_size, min_size), outputRejectLevels=True)
        candidates = []
        for (x, y, w, h), weight in zip(boxes, np.ravel(weights)):
            c = confidence(float(weight))
            if c < min_confidence or not self.confirmed(detect, int(x), int(y), int(w), int(h)):
                continue
            candidates.append((c, int(x), int(y), int(w), int(h)))
        out = []
        for c, x, y, w, h in suppress(candidates):
            # Back to the image's own pixels.
            x, y = int(round(x / scale)), int(round(y / scale))
            w, h = min(int(round(w / scale)), width - x), min(int(round(h / scale)), height - y)
            if w < min_width_ratio * width:
                continue
            out.append({"x": x, "y": y, "w": w, "h": h, "confidence": round(c, 4),
                        "descriptor": [round(float(v), 5) for v in self.descriptor(image[y:y + h, x:x + w])]})
        return out

    def confirmed(self, grey, x, y, w, h):
        """Whether the LBP cascade also finds a face, of about the same size,
        centred inside the Haar candidate."""
        cv2 = self.cv2
        m = w // 4
        x0, y0 = max(0, x - m), max(0, y - m)
        x1, y1 = min(grey.shape[1], x + w + m), min(grey.shape[0], y + h + m)
        s = CONFIRM_FACE / w
        region = cv2.resize(grey[y0:y1, x0:x1], None, fx=s, fy=s,
                            interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
        found = self.lbp.detectMultiScale(region, scaleFactor=1.05, minNeighbors=2,
                                          minSize=(CONFIRM_FACE // 2, CONFIRM_FACE // 2),
                                          maxSize=(CONFIRM_FACE * 8 // 5, CONFIRM_FACE * 8 // 5))
        bx, by = (x - x0) * s, (y - y0) * s
        for fx, fy, fw, fh in found:
            cx, cy = fx + fw / 2, fy + fh / 2
            if bx <= cx <= bx + CONFIRM_FACE and by <= cy <= by + CONFIRM_FACE:
                return True
        return False

    def descriptor(self, face):
        """Uniform LBP histograms (59 bins) of the face brought down to
        DETAIL pixels, then scaled to 64x64 and equalised, over a 4x4 grid
        of 16x16 cells; the histograms of the
        mirrored face added (a face and its mirror image describe alike);
        square roots (Hellinger); each cell's minus the mean of the cells
        (what is particular to each region of this face, not the texture
        every face shares: without it any two faces score above 0.8);
        L2-normalised, so that the dot product is the cosine."""
        cv2, np = self.cv2, self.np
        face = cv2.resize(face, (DETAIL, DETAIL), interpolation=cv2.INTER_AREA)
        face = cv2.equalizeHist(cv2.resize(face, (FACE_SIZE + 2, FACE_SIZE + 2), interpolation=cv2.INTER_AREA))
        h = self.histograms(face) + self.histograms(cv2.flip(face, 1))
        v = np.sqrt(h)
        v = (v - v.mean(axis=0, keepdims=True)).ravel()
        n = np.linalg.norm(v)
        return v / n if n > 0 else v

    def histograms(self, face):
        np = self.np
        g = face.astype(np.int16)
        centre = g[1:-1, 1:-1]
        code = np.zeros(centre.shape, np.uint8)
        rows, cols = g.shape
        for bit, (dy, dx) in enumerate(((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))):
            neighbour = g[1 + dy:rows - 1 + dy, 1 + dx:cols - 1 + dx]
            code |= (neighbour >= centre).astype(np.uint8) << bit
        code = self.uniform[code]
        cell = FACE_SIZE // GRID
        return np.array([np.bincount(code[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell].ravel(), minlength=59)
                         for i in range(GRID) for j in range(GRID)], np.float64)


def suppress(candidates):
    """Non-maximum suppression: the surest first, dropping any box that
    overlaps a kept one by more than 30 % of their union or covers more than
    60 % of the smaller of the two (a box nested in another)."""
    kept = []
    for c in sorted(candidates, reverse=True):
        _, x, y, w, h = c
        ok = True
        for _, kx, ky, kw, kh in kept:
            iw = min(x + w, kx + kw) - max(x, kx)
            ih = min(y + h, ky + kh) - max(y, ky)
            if iw <= 0 or ih <= 0:
                continue
            inter = iw * ih
            if inter > 0.3 * (w * h + kw * kh - inter) or inter > 0.6 * min(w * h, kw * kh):
                ok = False
                break
        if ok:
            kept.append(c)
    return kept


def main():
    # Imported before the ready line, which says the helper can work; what
    # they cost is paid once per helper.
    import cv2
    import numpy  # noqa: F401 (the Detector's)

    # One thread: the frames of a run go one after another at low priority.
    cv2.setNumThreads(1)
    sys.stdout.write('{"ready": true}\n')
    sys.stdout.flush()
    detectors = {}
    for line in sys.stdin:
        req = json.loads(line)
        cascades = (req["cascade"], req["confirm"])
        if cascades not in detectors:
            detectors[cascades] = Detector(*cascades)
        detector = detectors[cascades]
        ratio, conf = float(req["minWidthRatio"]), float(req["minConfidence"])
        answer = {"faces": [detector.faces(p, ratio, conf) for p in req["images"]]}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
