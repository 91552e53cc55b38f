"""Judge-input assurance: packets, checkers, the checked pipeline (controls P0-P3) and its studies."""

from judges.assurance.checks import REQUIREMENTS, Finding, check_packet, check_source
from judges.assurance.pipeline import CONTROLS, STEPS, Controls, PipelineConfig, StageRefused, run_pipeline, run_step
from judges.assurance.render import PacketSpec, render_packet

__all__ = ["CONTROLS", "REQUIREMENTS", "STEPS", "Controls", "Finding", "PacketSpec", "PipelineConfig",
           "StageRefused", "check_packet", "check_source", "render_packet", "run_pipeline", "run_step"]
