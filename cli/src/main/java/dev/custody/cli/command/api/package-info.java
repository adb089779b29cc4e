/**
 * {@code custody api}: the thin command-line client of the custody REST API, over the {@code custody-client}
 * module.
 */
package dev.custody.cli.command.api;
