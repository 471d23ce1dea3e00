package dev.cdccache.coupon.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GenerationPlanTest {

    @Test
    void fullIsTheVolumeTheIssueAsksFor() {
        GenerationPlan full = GenerationPlan.parse("full");
        assertThat(full.places()).isGreaterThanOrEqualTo(2_000);
        assertThat(full.coupons()).isGreaterThanOrEqualTo(100_000);
        assertThat(full.attributesPerCoupon()).isGreaterThanOrEqualTo(5);
    }

    @Test
    void parsesSmallAndExplicitSizes() {
        assertThat(GenerationPlan.parse("small")).isEqualTo(GenerationPlan.SMALL);
        assertThat(GenerationPlan.parse("200:10000")).extracting(GenerationPlan::places, GenerationPlan::coupons,
                GenerationPlan::attributesPerCoupon).containsExactly(200, 10_000, 5);
        assertThat(GenerationPlan.parse("3:30:2").attributesPerCoupon()).isEqualTo(2);
    }

    @Test
    void rejectsAnythingElseWithTheAcceptedForms() {
        assertThatThrownBy(() -> GenerationPlan.parse("lots")).hasMessageContaining("PLACES:COUPONS[:ATTRIBUTES]");
        assertThatThrownBy(() -> GenerationPlan.parse("0:10")).hasMessageContaining("at least one place");
    }
}
