/**
 * Multus secondary networks: the config-less NetworkAttachmentDefinitions the operator keeps, one
 * of the network's name in each namespace {@code spec.attachment.multus} chooses, so that Multus
 * reads the configuration from the file the node agent writes into its own configuration directory.
 * Which namespaces ({@link ChosenNamespaces}) and what to create, restore or delete ({@link
 * AttachmentDefinitionPlan}) are pure decisions; {@link AttachmentDefinitions} reads and writes the
 * API server and says what holds ({@link AttachmentReport}).
 */
package dev.cnioperator.operator.multus;
