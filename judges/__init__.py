"""Judge backends, prompt conditions, the runner, metrics, the GroundEval scorer and input assurance."""
