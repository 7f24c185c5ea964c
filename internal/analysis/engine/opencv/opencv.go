// Package opencv is the offline face detection engine: OpenCV's cascade
// classifiers (Debian's python3-opencv, with the cascades of opencv-data),
// run by Python helpers (faces.py, embedded) kept running, a batch of images
// a request: importing cv2, most of a short batch's time, is paid once per
// helper.
//
// A face is a Haar cascade detection (haarcascade_frontalface_default)
// confirmed by the LBP cascade (lbpcascade_frontalface_improved) on its
// neighbourhood; its confidence is a logistic on the Haar cascade's level
// weight; its descriptor is a mirror-symmetric grid of uniform LBP
// histograms of the face, for grouping faces by person (cosine similarity,
// SamePersonSimilarity). faces.py documents the measurements behind each
// choice.
package opencv

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/loupe-mam/loupe/internal/analysis"
	"github.com/loupe-mam/loupe/internal/tool"
)

// Name is the engine's name in analysis states and metering.
const Name = "opencv"

// SamePersonSimilarity is the cosine similarity of two descriptors at and
// above which the faces are taken for one person's. Measured on the two
// faces Debian ships, skimage's astronaut (Eileen Collins) and matplotlib's
// grace_hopper: each against its copy rescaled 0.7x and brightened
// (TestDescriptor) 0.86 and 0.81; against itself rescaled 0.25x to 1.5x,
// mirrored, rotated 10 degrees, darkened, brightened or JPEG-compressed at
// quality 20, 0.63 (rotated) to 0.91; the two women against each other, in
// all those versions, 0.30 to 0.44. 0.55 sits between. Two persons are
// little evidence: LBP histograms are no face recognition model, and
// look-alikes, lighting and pose will blur the line; what the descriptor is
// fit for is grouping one person's faces across the frames of a video.
const SamePersonSimilarity = 0.55

//go:embed faces.py
var script string

// cascadeDirs are where the cascades are looked for: opencv-data's
// directory, then older and source builds' places.
var cascadeDirs = []string{"/usr/share/opencv4", "/usr/share/opencv", "/usr/local/share/opencv4"}

const (
	haarCascade = "haarcascades/haarcascade_frontalface_default.xml"
	lbpCascade  = "lbpcascades/lbpcascade_frontalface_improved.xml"
)

// Engine finds faces with OpenCV. The zero value is ready to use.
type Engine struct{}

var _ analysis.FaceDetector = Engine{}

// Name implements analysis.FaceDetector.
func (Engine) Name() string { return Name }

// SamePersonSimilarity implements analysis.FaceDetector: the package's
// SamePersonSimilarity.
func (Engine) SamePersonSimilarity() float64 { return SamePersonSimilarity }

// Available reports whether a python3 that imports cv2 and the two
// cascades are installed.
func Available() bool {
	_, _, ok := cascades()
	_, err := tool.Python(modules...)
	return ok && err == nil
}

// cascades are the paths of the Haar and LBP cascades, from the first
// directory that has both.
func cascades() (haar, lbp string, ok bool) {
	for _, dir := range cascadeDirs {
		haar, lbp = filepath.Join(dir, haarCascade), filepath.Join(dir, lbpCascade)
		if isFile(haar) && isFile(lbp) {
			return haar, lbp, true
		}
	}
	return "", "", false
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// modules are what faces.py imports.
var modules = []string{"cv2", "numpy"}

// errNotInstalled: the engine cannot run here.
var errNotInstalled = errors.New("opencv: python3-opencv or opencv-data is not installed (scripts/deps run installs them)")

// helpers run faces.py, up to one a core.
var helpers = newHelpers(script)

func newHelpers(script string) *tool.Pool {
	return tool.NewPool(runtime.GOMAXPROCS(0), func() (tool.Cmd, error) {
		py, err := tool.Python(modules...)
		if err != nil {
			return tool.Cmd{}, errNotInstalled
		}
		// One thread each for OpenCV (faces.py sets it too), OpenMP and
		// OpenBLAS: the frames of a run go through one after another at
		// low priority; more threads only fight the other work. OpenCV's
		// warnings (an unreadable image) are not errors here.
		return tool.Cmd{Program: py, Args: []string{"-c", script}, Name: "opencv",
			Env: []string{"OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "OPENCV_LOG_LEVEL=ERROR"}}, nil
	})
}

// request is faces.py's input.
type request struct {
	Images        []string `json:"images"`
	MinWidthRatio float64  `json:"minWidthRatio"`
	MinConfidence float64  `json:"minConfidence"`
	Cascade       string   `json:"cascade"`
	Confirm       string   `json:"confirm"`
}

// answer is faces.py's output.
type answer struct {
	Faces [][]struct {
		X          int       `json:"x"`
		Y          int       `json:"y"`
		W          int       `json:"w"`
		H          int       `json:"h"`
		Confidence float64   `json:"confidence"`
		Descriptor []float32 `json:"descriptor"`
	} `json:"faces"`
}

// DetectFaces implements analysis.FaceDetector: the batch is one request
// to a helper. An image that cannot be read (missing, not an image)
// answers no faces.
func (Engine) DetectFaces(ctx context.Context, imagePaths []string, minWidthRatio, minConfidence float64) ([][]analysis.Face, error) {
	if !(minWidthRatio >= 0 && minWidthRatio <= 1) || !(minConfidence >= 0 && minConfidence <= 1) {
		return nil, fmt.Errorf("opencv: minWidthRatio %v and minConfidence %v must be in [0, 1]", minWidthRatio, minConfidence)
	}
	if len(imagePaths) == 0 {
		return [][]analysis.Face{}, nil
	}
	haar, lbp, ok := cascades()
	if !ok {
		return nil, errNotInstalled
	}
	var a answer
	err := helpers.Do(ctx, request{Images: imagePaths, MinWidthRatio: minWidthRatio, MinConfidence: minConfidence, Cascade: haar, Confirm: lbp}, &a)
	if err != nil {
		return nil, err
	}
	if len(a.Faces) != len(imagePaths) {
		return nil, fmt.Errorf("opencv: %d answers for %d images", len(a.Faces), len(imagePaths))
	}
	res := make([][]analysis.Face, len(a.Faces))
	for i, faces := range a.Faces {
		res[i] = make([]analysis.Face, 0, len(faces))
		for _, f := range faces {
			res[i] = append(res[i], analysis.Face{Box: analysis.Box{X: f.X, Y: f.Y, W: f.W, H: f.H},
				Confidence: f.Confidence, Descriptor: f.Descriptor})
		}
	}
	return res, nil
}
