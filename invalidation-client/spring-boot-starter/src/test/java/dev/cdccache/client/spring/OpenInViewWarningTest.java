package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;

class OpenInViewWarningTest {

    @Test
    void anOpenInViewInterceptorInTheContextIsReported() {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("openEntityManagerInViewInterceptor",
                new RootBeanDefinition(OpenEntityManagerInViewInterceptor.class));

        assertThat(OpenInViewWarning.warnIfOn(beanFactory)).isTrue();
    }

    @Test
    void aContextWithoutOpenInViewIsNotReported() {
        assertThat(OpenInViewWarning.warnIfOn(new DefaultListableBeanFactory())).isFalse();
    }
}
