package dev.cdccache.connector.startup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReplicaCheckTest {

    @Test
    void readsTheOriginatingServerOfEveryDomainOfAMariaDbGtidPosition() {
        assertThat(ReplicaCheck.gtidServerIds("0-1-57,1-7-3")).containsExactlyInAnyOrder(1L, 7L);
        assertThat(ReplicaCheck.gtidServerIds("0-4294967295-1")).containsExactly(4294967295L);
    }

    @Test
    void anEmptyOrForeignPositionNamesNoServer() {
        assertThat(ReplicaCheck.gtidServerIds("")).isEmpty();
        assertThat(ReplicaCheck.gtidServerIds("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5")).isEmpty();
    }
}
