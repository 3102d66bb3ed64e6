package dev.cnioperator.operator.multus;

import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a Multus network's config-less NetworkAttachmentDefinitions in the API server: reads the
 * ones of its name and its own, acts on the {@link AttachmentDefinitionPlan}, and reports.
 *
 * <p>Nothing watches the definitions. An informer on a resource whose CRD is not installed fails to
 * start, and would keep the operator from starting or from being ready on every cluster without
 * Multus; so each reconcile of a Multus network lists them instead (two requests: the ones of its
 * name, and its own by label), and the network is looked at again after {@link
 * AttachmentReport#recheckAfter()}: that is how a CRD installed later, a definition deleted by hand
 * or one in the way removed are noticed. What was found is reused while the inputs (spec, name,
 * chosen namespaces) are unchanged and the recheck is not due, so agents' reports, which reconcile
 * the network often, cost no request.
 */
public final class AttachmentDefinitions {
  private static final Logger log = LoggerFactory.getLogger(AttachmentDefinitions.class);

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Checked> checked = new ConcurrentHashMap<>();

  /** What a reconcile of a network decided from, and when. */
  private record Inputs(long generation, String name, ChosenNamespaces chosen) {}

  private record Checked(Inputs inputs, AttachmentReport report, Instant at) {}

  public AttachmentDefinitions(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * Makes the definitions of a Multus network what its spec asks and reports on them; removes those
   * of a network that stopped being one, and reports nothing for it, as for any other network.
   *
   * @param name the network's CNI name in its accepted revision (null when none was ever accepted):
   *     the definitions' name
   * @param namespaces the namespaces that exist (the operator's informer cache)
   * @throws KubernetesClientException when the definitions of a former Multus network could not be
   *     removed (the reconcile is retried)
   */
  public Optional<AttachmentReport> reconcile(
      CniNetwork network, String name, Supplier<Collection<Namespace>> namespaces) {
    if (!network.getSpec().isMultus()) {
      if (hadDefinitions(network.getStatus())) {
        removeAll(network);
      }
      return Optional.empty();
    }
    if (name == null) {
      return Optional.of(AttachmentReport.notAccepted());
    }
    String uid = network.getMetadata().getUid();
    Inputs inputs =
        new Inputs(
            network.getMetadata().getGeneration(),
            name,
            ChosenNamespaces.of(network.getSpec().getAttachment().getMultus(), namespaces.get()));
    Instant now = clock.instant();
    Checked last = checked.get(uid);
    if (last != null && last.inputs().equals(inputs)) {
      Optional<Duration> remaining =
          last.report().recheckAfter().map(r -> Duration.between(now, last.at().plus(r)));
      if (remaining.isPresent() && remaining.get().compareTo(Duration.ofSeconds(1)) > 0) {
        return Optional.of(last.report().recheckingAfter(remaining.get()));
      }
    }
    AttachmentReport report = check(network, inputs);
    checked.put(uid, new Checked(inputs, report, now));
    return Optional.of(report);
  }

  /**
   * A deleted network's definitions go at once, so no new pod asks for it while its nodes let go of
   * its files. One that cannot be deleted now goes with the network (its owner reference).
   */
  public void networkDeleted(CniNetwork network) {
    if (!network.getSpec().isMultus() && !hadDefinitions(network.getStatus())) {
      return;
    }
    try {
      removeAll(network);
    } catch (KubernetesClientException e) {
      log.warn(
          "event=nad-removal-failed network={} error={}", network.getMetadata().getName(), why(e));
    }
  }

  /**
   * Deletes every definition the network created, wherever it is: when the network is deleted or
   * stops being a Multus network.
   *
   * @throws KubernetesClientException when one could not be listed or deleted
   */
  private void removeAll(CniNetwork network) {
    checked.remove(network.getMetadata().getUid());
    List<AttachmentDefinition> own;
    try {
      own = labelledAs(network);
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return; // no CRD, so no definitions
      }
      throw e;
    }
    for (AttachmentDefinition d : own) {
      if (d.ownedBy(network.getMetadata().getUid())) {
        delete(network, d);
      }
    }
  }

  /** Whether a network's status says it had definitions (it was a Multus network). */
  private static boolean hadDefinitions(CniNetworkStatus status) {
    return status != null
        && (status.getAttachmentDefinitions() != null
            || (status.getConditions() != null
                && status.getConditions().stream()
                    .anyMatch(c -> ConditionType.ATTACHMENT_DEFINITIONS.is(c.getType()))));
  }

  private AttachmentReport check(CniNetwork network, Inputs inputs) {
    List<AttachmentDefinition> found = new ArrayList<>();
    try {
      found.addAll(named(inputs.name()));
      found.addAll(labelledAs(network));
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return AttachmentReport.notInstalled();
      }
      log.warn(
          "event=nad-list-failed network={} error={}", network.getMetadata().getName(), why(e));
      return AttachmentReport.failed("listing NetworkAttachmentDefinitions failed: " + why(e));
    }
    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of(
            inputs.name(), network.getMetadata().getUid(), inputs.chosen(), found);
    SortedSet<String> held = new TreeSet<>(plan.held());
    List<String> failures = new ArrayList<>();
    for (String namespace : plan.create()) {
      try {
        resources()
            .inNamespace(namespace)
            .resource(AttachmentDefinition.desired(network, namespace, inputs.name()))
            .create();
        held.add(namespace);
        log.info(
            "event=nad-created network={} namespace={} name={}",
            network.getMetadata().getName(),
            namespace,
            inputs.name());
      } catch (KubernetesClientException e) {
        failures.add(namespace + "/" + inputs.name() + ": create: " + why(e));
      }
    }
    for (AttachmentDefinition d : plan.restore()) {
      try {
        // The resourceVersion makes it a precondition: a definition changed since it was read is
        // left for the next look.
        definition(d)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"resourceVersion\":\""
                    + d.resourceVersion()
                    + "\"},\"spec\":{\"config\":null}}");
        log.info(
            "event=nad-restored network={} namespace={} name={}",
            network.getMetadata().getName(),
            d.namespace(),
            d.name());
      } catch (KubernetesClientException e) {
        failures.add(d.id() + ": remove spec.config: " + why(e));
      }
    }
    for (AttachmentDefinition d : plan.delete()) {
      try {
        delete(network, d);
      } catch (KubernetesClientException e) {
        failures.add(d.id() + ": delete: " + why(e));
      }
    }
    return AttachmentReport.of(inputs.name(), inputs.chosen(), plan, held, failures);
  }

  private void delete(CniNetwork network, AttachmentDefinition d) {
    // Only the version that was read, so one re-created by someone else meanwhile stays.
    definition(d).lockResourceVersion(d.resourceVersion()).delete();
    log.info(
        "event=nad-deleted network={} namespace={} name={}",
        network.getMetadata().getName(),
        d.namespace(),
        d.name());
  }

  /** Every definition of this name, whoever made it. */
  private List<AttachmentDefinition> named(String name) {
    return views(resources().inAnyNamespace().withField("metadata.name", name).list());
  }

  /** The definitions labelled as {@code network}'s, its own among them. */
  private List<AttachmentDefinition> labelledAs(CniNetwork network) {
    return views(
        resources()
            .inAnyNamespace()
            .withLabel(
                AttachmentDefinition.NETWORK_LABEL,
                AttachmentDefinition.labelValue(network.getMetadata().getName()))
            .list());
  }

  private static List<AttachmentDefinition> views(GenericKubernetesResourceList list) {
    return list.getItems().stream().map(AttachmentDefinition::of).toList();
  }

  private Resource<GenericKubernetesResource> definition(AttachmentDefinition d) {
    return resources().inNamespace(d.namespace()).withName(d.name());
  }

  private MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      resources() {
    return client.genericKubernetesResources(AttachmentDefinition.RESOURCE);
  }

  /** The API server's own message, without fabric8's request line. */
  private static String why(KubernetesClientException e) {
    return e.getStatus() != null && e.getStatus().getMessage() != null
        ? e.getStatus().getMessage()
        : e.getMessage();
  }
}
