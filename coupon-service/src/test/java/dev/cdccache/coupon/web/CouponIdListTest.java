package dev.cdccache.coupon.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.coupon.problem.ApiProblem;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

class CouponIdListTest {

    @Test
    void keepsFirstSeenOrderAndDropsDuplicates() {
        assertThat(CouponIdList.parse("3, 1,2,3,1", 10)).containsExactly(3L, 1L, 2L);
    }

    @Test
    void acceptsExactlyTheCap() {
        String ids = IntStream.rangeClosed(1, 5).mapToObj(Integer::toString).collect(Collectors.joining(","));
        assertThat(CouponIdList.parse(ids, 5)).hasSize(5);
    }

    @Test
    void rejectsMoreIdsThanTheCapNamingIt() {
        assertThatThrownBy(() -> CouponIdList.parse("1,2,3,4,5,6", 5))
                .isInstanceOfSatisfying(ApiProblem.class, p -> assertThat(p.status()).isEqualTo(HttpStatus.BAD_REQUEST))
                .hasMessageContaining("at most 5 ids").hasMessageContaining("got 6");
    }

    @Test
    void rejectsMissingEmptyNonNumericAndNonPositiveIds() {
        assertThatThrownBy(() -> CouponIdList.parse(null, 5)).hasMessageContaining("'ids' is required");
        assertThatThrownBy(() -> CouponIdList.parse(" ", 5)).hasMessageContaining("'ids' is required");
        assertThatThrownBy(() -> CouponIdList.parse("1,,2", 5)).hasMessageContaining("empty entry");
        assertThatThrownBy(() -> CouponIdList.parse("1,x2", 5)).hasMessageContaining("'x2'");
        assertThatThrownBy(() -> CouponIdList.parse("-1", 5)).hasMessageContaining("'-1'");
        assertThatThrownBy(() -> CouponIdList.parse("99999999999999999999", 5)).hasMessageContaining("not a coupon id");
    }

    @Test
    void abbreviatesAHugeTokenInTheMessage() {
        assertThatThrownBy(() -> CouponIdList.parse("y".repeat(500), 5))
                .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(120));
    }
}
