"""ONNX embedders described by model specs; every model file is verified by sha256 when loaded."""
