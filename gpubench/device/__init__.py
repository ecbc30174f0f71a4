"""The device: backend names and GPU detection, the environment of a measurement, PTX and the GPU check."""
