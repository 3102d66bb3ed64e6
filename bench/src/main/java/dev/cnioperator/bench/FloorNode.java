package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A per-node object of the custom-resource floor: the CniNode's schema under a group of the
 * benchmark's own, so that the operator, which informs on CniNodes, neither hears nor handles the
 * floor's writes (see {@link CustomResourceNodes}).
 */
@Group(FloorNode.GROUP)
@Version("v1alpha1")
@Kind("FloorNode")
@Plural("floornodes")
public class FloorNode extends CustomResource<CniNodeSpec, CniNodeStatus> {
  static final String GROUP = "bench.cnioperator.dev";
}
