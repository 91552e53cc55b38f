"""Each package's public surface is deliberate: ``__all__`` pinned here, every name importable, py.typed shipped.

A change to a package's API changes this table in the same commit.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import FunctionType, ModuleType

import pytest

from orgbench.core.exports import declared_exports

ROOT = Path(__file__).resolve().parents[1]
TOP = ("orgbench", "simulator", "benchmark_builders", "judges")

API = {
    "orgbench": ["__version__"],
    "orgbench.commands": [],
    "orgbench.harness": [],
    "orgbench.core": [
        "ConfigError", "EndpointError", "FormatError", "InputError", "JsonLine", "JsonlFile", "LATEX_ESCAPES",
        "MANIFEST", "OrgbenchError", "Table", "UTC", "dumps", "dumps_pretty", "format_cell", "format_ts", "latex_escape",
        "lazy_exports", "minutes", "open_binary", "parse_ts", "read_bytes", "read_json",
        "read_jsonl", "read_text", "repeated_key", "sha256_bytes", "sha256_file", "staged_directory",
        "verify_manifest", "write_bytes_atomic", "write_json", "write_jsonl", "write_manifest", "write_table",
        "write_text_atomic",
    ],
    "orgbench.defaults": [],
    "orgbench.report": ["drill_spec", "render_page", "study_section", "study_titles", "write_report",
                        "write_results_readme"],
    "orgbench.prose": ["DEFAULT_KINDS", "ModelRewrite", "open_rewrite"],
    "orgbench.studies": ["ReproduceOptions"],
    "orgbench.sweep": ["SweepRun", "run_sweep"],
    "simulator": ["AccessPolicy", "Actor", "ArtifactVersion", "Event", "SimConfig", "World", "build_world",
                  "load_config", "load_world", "save_world", "simulate", "simulate_to"],
    "simulator.packs": ["BUILTIN_PACKS", "DEFAULT_PACK", "Pack", "default_pack", "is_builtin", "load_pack",
                        "pack_reference", "resolve", "world_pack"],
    "simulator.processes": [],
    "simulator.prose": ["CITED", "COMPOSERS", "Composer", "Speaker"],
    "benchmark_builders": [],
    "benchmark_builders.cargo": ["FAMILIES", "SHOULD_PENALIZE", "Suite", "SuiteConfig", "SupportCase", "build_suite",
                                 "case_from_facts", "cases_from_world", "suite_from_world_objects", "write_suite",
                                 "write_suite_files"],
    "benchmark_builders.export": ["EXPORT_FILE", "FORMATS", "SUITE_FORMATS", "export_hf", "export_world",
                                  "world_digests"],
    "benchmark_builders.groundeval": [
        "BuildConfig", "BuildSummary", "COUNTERFACTUAL", "CausalRule", "Contract", "PERSPECTIVE", "Question", "Rules",
        "SILENCE", "SilenceRule", "TRACKS", "Truth", "WORLD_RULES", "assemble_questions", "build_questions",
        "build_suite", "load_build_config", "load_domain",
    ],
    "benchmark_builders.trajectories": ["ChatMessage", "StepLabels", "ToolCall", "Trajectory", "read_suite",
                                        "write_suite"],
    "judges": ["Condition", "ConditionScore", "PenaltyTable", "Verdict", "condition", "discrimination_index",
               "parse_conditions", "parse_verdict", "penalty_table", "score_condition"],
    "judges.assurance": ["CONTROLS", "Controls", "Finding", "PacketSpec", "PipelineConfig", "REQUIREMENTS", "STEPS",
                         "StageRefused", "check_packet", "check_source", "render_packet", "run_pipeline", "run_step"],
    "judges.assurance.mutations": [],
    "judges.backends": ["AgentBackend", "AgentTurn", "BackendError", "BackendSpec", "EndpointConfig",
                        "FatalBackendError", "GenerationParams", "JudgeBackend", "JudgeRequest", "JudgeResponse",
                        "Message", "Usage", "apply_generation_options", "make_backend", "parse_extra"],
    "judges.groundeval": ["CompiledTruth", "Corpus", "GatedRuntime", "QuestionScore", "score_question", "summarize"],
    "judges.groundeval.adapters": ["FRAMEWORKS"],
}


def _packages() -> list[str]:
    found = []
    for top in TOP:
        for init in (ROOT / top).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                found.append(".".join(init.parent.relative_to(ROOT).parts))
    return sorted(found)


def test_every_package_is_pinned():
    assert sorted(API) == _packages()


@pytest.mark.parametrize("package", sorted(API))
def test_the_package_exports_exactly_its_pinned_api(package):
    module = importlib.import_module(package)
    assert sorted(module.__all__) == API[package]


@pytest.mark.parametrize("package", sorted(API))
def test_each_exported_name_is_what_it_names_never_a_module(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert not isinstance(getattr(module, name), ModuleType), f"{package}.{name}"


def test_simulate_is_the_function_even_after_its_module_is_imported():
    import simulator.simulate                   # noqa: F401  (binds the submodule on its package)
    import simulator
    from simulator import simulate
    assert isinstance(simulate, FunctionType) and simulate is simulator.simulate
    assert simulate is importlib.import_module("simulator.simulate").simulate


@pytest.mark.parametrize("package", [p for p in sorted(API) if "lazy_exports(__name__)" in (ROOT / p.replace(".", "/") /
                                                                                   "__init__.py").read_text()])
def test_a_lazy_package_lists_its_api_once_as_typed_imports(package):
    """``__all__`` is exactly the ``if TYPE_CHECKING:`` imports mypy reads, and each resolves to what they import."""
    init = ROOT / package.replace(".", "/") / "__init__.py"
    table = declared_exports(init)
    assert sorted(table) == API[package]
    module = importlib.import_module(package)
    for name, ref in table.items():
        source, attribute = ref.split(":")
        assert getattr(module, name) is getattr(importlib.import_module(source), attribute), name


@pytest.mark.parametrize("top", TOP)
def test_each_distribution_package_is_marked_typed(top):
    assert (ROOT / top / "py.typed").is_file()
