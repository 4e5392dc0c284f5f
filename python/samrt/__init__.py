"""samrt: SAM 2.1 and EdgeTAM video object segmentation from one fixed arena, in Python.

A thin door into the C library libsamrt (include/samrt.h): the package calls its public API
through ctypes and adds no model code of its own. numpy is its only requirement; torch is
optional (VideoPredictor(output="torch")).

    import samrt
    model = samrt.Model("sam2.1_hiera_tiny.pt", max_objects=2)
    model.budget()                      # the arena by region, exact
    res = model.segment(rgb, points=[[210, 350]], labels=[1])
    session = model.track(width, height)
    session.prompt(1, box=[100, 80, 300, 260])
    for frame in frames:
        for r in session.push(frame):
            r.obj_id, r.mask, r.score, r.area, r.box

    predictor = samrt.VideoPredictor(model)          # the official streaming calls
    state = predictor.init_state("video_frames/")
    predictor.add_new_points_or_box(state, frame_idx=0, obj_id=1, points=[[210, 350]], labels=[1])
    for frame_idx, obj_ids, masks in predictor.propagate_in_video(state):
        ...

    camera = samrt.CameraPredictor(model)            # live input, the community camera calls
    camera.load_first_frame(first)
    camera.add_new_prompt(frame_idx=0, obj_id=1, bbox=[100, 80, 300, 260])
    for frame in samrt.VideoReader("/dev/video0"):   # the library's FFmpeg reader
        obj_ids, mask_logits = camera.track(frame)

Every call releases the GIL while the library works. Failures of the library raise
samrt.Error subclasses (errors.py); arguments checked in Python raise ValueError.
docs/python.md in the repository is the guide.
"""
from .camera import CameraPredictor
from .errors import (ArenaTooSmallError, CheckpointError, CudaError, Error, ExecutionError, FileError, FormatError,
                     HostMemoryError, InputError, InvalidArgumentError, NoDeviceError, NumericError, StateError,
                     UnavailableError, UnsupportedError)
from .model import Model, SegmentResult
from .reader import VideoReader, video_available
from .system import (device_count, devices, has_cuda, library_path, library_versions, model_names,
                     platform_profiles, read_image)
from .track import TrackResult, TrackSession
from .video import InferenceState, VideoPredictor

__version__ = "0.1.0"

__all__ = [
    "Model", "SegmentResult", "TrackSession", "TrackResult", "VideoPredictor", "InferenceState", "CameraPredictor",
    "VideoReader", "video_available",
    "has_cuda", "device_count", "devices", "library_path", "library_versions", "model_names", "platform_profiles",
    "read_image",
    "Error", "InputError", "InvalidArgumentError", "FileError", "FormatError", "CheckpointError", "ExecutionError",
    "ArenaTooSmallError", "CudaError", "HostMemoryError", "StateError", "UnavailableError", "UnsupportedError",
    "NoDeviceError", "NumericError",
]
