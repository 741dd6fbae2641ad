/**
 * Names older builds gave to serializer snapshots of persisted state, before the state classes moved next to the
 * stage that owns them. A savepoint stores the snapshot's class name and Flink instantiates it by that name on
 * restore, so these stay (as subclasses of the moved snapshots) for as long as such savepoints may be restored.
 * Nothing else belongs here; {@code StateFormatsTest} restores the snapshots as those builds wrote them.
 */
package io.walshadow.state;
