"""The plan model: one engine as readers' records make it, every fact computed once.

:class:`EnginePlan` (TREx's API) holds the layers (:mod:`.layer`, :mod:`.tensors`), the layer
graph (:mod:`.graph`), the DataFrame (:mod:`.dataframe`), profiles (:mod:`.profiles`) and the
warnings of :mod:`.validation`; :mod:`.facts` gives the headline figures every view shows;
:mod:`.loader` turns input files into the records the plan is built from.
"""

from .facts import EngineFacts, Measured, engine_facts, summary_dict
from .layer import Layer
from .layer_graph import LayerGraph
from .plan import EnginePlan
from .protocol import PlanLike
from .tensors import Activation, IOTensor, ProfileShapes

__all__ = ["Activation", "EngineFacts", "EnginePlan", "IOTensor", "Layer", "LayerGraph", "Measured",
           "PlanLike", "ProfileShapes", "engine_facts", "summary_dict"]
