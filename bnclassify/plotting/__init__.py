"""matplotlib figures: structures, learned tree vs contact tree, weights, CPTs, CV results,
critical-difference diagrams.

Every function takes an optional ``ax`` (or ``fig``), draws on it, and returns
the matplotlib object it drew on; none calls ``plt.show()``. Edges are drawn as
artists that remember which edge they are (attribute ``bnclassify_edge``), so
:func:`drawn_edges` reads a figure back as a list of ``(parent, child)`` pairs;
node labels carry their node as ``bnclassify_node``. Tests use this, and so
can anyone post-processing a figure.

Colours come from one palette (Okabe-Ito, readable by colour-blind readers) in
which a colour keeps its meaning across figures: in comparisons, edges two
trees share are vermillion, the first (learned) tree's others blue, the second
(contact) tree's others bluish green.
"""

# The names imported "as" themselves are importable as before but not documented (not
# in __all__): the palette's tree and family colours, and what the figures compute.
from ._bma import plot_edge_posterior
from ._continuous import plot_class_densities, plot_decision_boundary
from ._cpt import plot_cpt
from ._critical_difference import critical_difference_groups, plot_critical_difference
from ._cv import cv_differences as cv_differences
from ._cv import model_family as model_family
from ._cv import plot_cv_results
from ._heatmap import plot_weights
from ._inference import InferenceView, plot_inference
from ._networks import plot_signal_edge_probabilities, plot_signal_edges
from ._palette import FAMILY_COLORS as FAMILY_COLORS
from ._palette import SHARED_COLOR as SHARED_COLOR
from ._palette import TREE_A_COLOR as TREE_A_COLOR
from ._palette import TREE_B_COLOR as TREE_B_COLOR
from ._readback import drawn_edges
from ._search import plot_search_path
from ._structure import plot_structure
from ._trees import expected_shared_edges as expected_shared_edges
from ._trees import plot_tree_comparison, shared_edges_permutation_pvalue

__all__ = [
    "InferenceView",
    "critical_difference_groups",
    "drawn_edges",
    "plot_class_densities",
    "plot_cpt",
    "plot_critical_difference",
    "plot_cv_results",
    "plot_decision_boundary",
    "plot_edge_posterior",
    "plot_inference",
    "plot_search_path",
    "plot_signal_edge_probabilities",
    "plot_signal_edges",
    "plot_structure",
    "plot_tree_comparison",
    "plot_weights",
    "shared_edges_permutation_pvalue",
]
