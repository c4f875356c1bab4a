"""Fit a vehicle's properties to measured driving, the fleet simulator running the candidates as lanes.

    from physxvehicle_usd.calibrate import calibrate, write_layer
    result = calibrate("car.usda", "drive.trace.json", fit=["/World/CarParts/Engine.physxVehicleEngine:peakTorque"])
    write_layer(result)   # car.calibrated.usda, sublayering car.usda, with the identified values

Modules: log (reading and resampling a log), lanes (`PRIM.ATTR` -> batch rows; candidates as lanes of one fleet),
fit (weighted residuals, least squares with batched Jacobians, differential evolution), identify (intervals, flat
directions, correlated pairs), run (`calibrate`), report (text, JSON, plot) and layer (the output layer).
"""
from .layer import CALIBRATED_SUFFIX, default_output, write_layer
from .run import DEFAULT_FIT, METHODS, Calibration, FittedValue, VehicleCalibration, calibrate

__all__ = ["CALIBRATED_SUFFIX", "DEFAULT_FIT", "METHODS", "Calibration", "FittedValue", "VehicleCalibration",
           "calibrate", "default_output", "write_layer"]
