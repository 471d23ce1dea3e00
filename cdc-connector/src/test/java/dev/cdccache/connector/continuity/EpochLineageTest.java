package dev.cdccache.connector.continuity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.contract.Epoch;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EpochLineageTest {

    @Test
    void aRenewalKeepsTheRootAndIsNewEachTime() {
        String root = Epoch.next();
        Set<String> renewals = new HashSet<>();
        String current = root;
        for (int i = 0; i < 1_000; i++) {
            current = EpochLineage.renewalOf(current);
            assertThat(current).startsWith(root + "+").hasSizeLessThanOrEqualTo(Epoch.MAX_LENGTH)
                    .isNotEqualTo(root);
            renewals.add(current);
        }
        assertThat(renewals).hasSize(1_000);
        assertThat(EpochLineage.renewalOf("")).doesNotContain("+").hasSize(36);
    }

    @Test
    void theNextStartResumesOnlyItsOwnRenewalsOfTheStoredOffsetsEpoch() {
        String root = Epoch.next();
        String renewed = EpochLineage.renewalOf(root);
        assertThat(EpochLineage.continues(root, root)).isTrue();
        assertThat(EpochLineage.continues(root, renewed)).isTrue();
        assertThat(EpochLineage.continues(renewed, EpochLineage.renewalOf(renewed))).isTrue();
        // a bare root is decided only at a start; an epoch of another root or another writer is not ours
        assertThat(EpochLineage.continues(renewed, root)).isFalse();
        assertThat(EpochLineage.continues(root, EpochLineage.renewalOf(Epoch.next()))).isFalse();
        assertThat(EpochLineage.continues(root, "connect-" + Epoch.next())).isFalse();
        assertThat(EpochLineage.continues("", "+" + root)).isFalse();
        assertThat(EpochLineage.continues(root, "+" + root)).isFalse();
    }
}
