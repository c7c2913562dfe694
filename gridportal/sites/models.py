"""Sites, virtual organisations, their groups and usage policies (Dumitrescu, Wilde & Foster 2005).

Configured by staff (admin and REST); every user reads them. A policy is
``<resource, provider (site or VO), consumer (VO or group), epoch (interval, %),
burst (interval, %)>``: a site gives each VO a share, and a VO passes its share on to its groups.
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


def local_policy_choices() -> list[tuple[str, str]]:
    """The engine's built-in policies, from its one registry (a callable: the migration
    names this function, not the list, so a new policy needs no migration)."""
    from scheduler.engine import scheduling_policy_choices

    return scheduling_policy_choices()


class Site(models.Model):
    name = models.SlugField(max_length=64, unique=True)
    description = models.CharField(max_length=200, blank=True)
    processors = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    local_policy = models.CharField(
        max_length=32, choices=local_policy_choices, default="conservative"
    )
    trace = models.ForeignKey(
        "inputs.Trace",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sites",
        help_text="background workload replayed on this site",
    )
    unit_cost = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0)],
        help_text="c: SU per processor-hour of a slot (1 SU = one processor for one hour at c = 1)",
    )
    fixed_cost = models.FloatField(
        default=0.0, validators=[MinValueValidator(0)], help_text="f: fixed cost per slot"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # A background trace is the site's: whoever sets it (admin, API, a command), a user's
        # upload is copied into a site-owned trace, so the uploader's trace page never lists
        # other users' runs and their bundles never carry the uploader's row.
        if self.trace_id is not None and not self.trace.site_owned:
            from .traces import site_trace_copy

            self.trace = site_trace_copy(site_name=self.name, trace=self.trace)
        super().save(*args, **kwargs)


class VirtualOrganization(models.Model):
    name = models.SlugField(max_length=64, unique=True)
    description = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "virtual organization"

    def __str__(self) -> str:
        return self.name


class Group(models.Model):
    vo = models.ForeignKey(VirtualOrganization, on_delete=models.CASCADE, related_name="groups")
    name = models.SlugField(max_length=64)

    class Meta:
        ordering = ["vo__name", "name"]
        constraints = [models.UniqueConstraint(fields=["vo", "name"], name="group_unique_in_vo")]

    def __str__(self) -> str:
        return f"{self.vo.name}.{self.name}"


PERCENT = [MinValueValidator(0), MaxValueValidator(100)]
INTERVAL = [MinValueValidator(1)]


class UsagePolicy(models.Model):
    class Resource(models.TextChoices):
        CPU = "CPU"
        NET = "NET"
        STORAGE = "STORAGE"

    resource = models.CharField(max_length=8, choices=Resource.choices, default=Resource.CPU)
    provider_site = models.ForeignKey(
        Site, null=True, blank=True, on_delete=models.CASCADE, related_name="policies"
    )
    provider_vo = models.ForeignKey(
        VirtualOrganization,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="group_policies",
    )
    consumer_vo = models.ForeignKey(
        VirtualOrganization,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="site_policies",
    )
    consumer_group = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.CASCADE, related_name="policies"
    )
    epoch_interval = models.PositiveIntegerField(validators=INTERVAL, help_text="seconds")
    epoch_percent = models.FloatField(validators=PERCENT, help_text="share over the epoch, %")
    burst_interval = models.PositiveIntegerField(validators=INTERVAL, help_text="seconds")
    burst_percent = models.FloatField(validators=PERCENT, help_text="share over a burst, %")

    class Meta:
        ordering = ["resource", "id"]
        verbose_name_plural = "usage policies"

    def __str__(self) -> str:
        return (
            f"{self.resource} {self.provider} → {self.consumer}: epoch "
            f"({self.epoch_interval} s, {self.epoch_percent:g} %) burst "
            f"({self.burst_interval} s, {self.burst_percent:g} %)"
        )

    @property
    def provider(self):
        return self.provider_site or self.provider_vo

    @property
    def consumer(self):
        return self.consumer_group or self.consumer_vo

    def clean(self) -> None:
        errors: dict[str, list[str]] = {}
        if bool(self.provider_site_id) == bool(self.provider_vo_id):
            errors.setdefault("provider_site", []).append(
                "give exactly one provider: a site or a VO"
            )
        if bool(self.consumer_vo_id) == bool(self.consumer_group_id):
            errors.setdefault("consumer_vo", []).append(
                "give exactly one consumer: a VO or a group"
            )
        if self.provider_site_id and self.consumer_group_id:
            errors.setdefault("consumer_group", []).append(
                "a site gives shares to VOs; a VO passes its share on to its groups"
            )
        if self.provider_vo_id and self.consumer_vo_id:
            errors.setdefault("consumer_vo", []).append(
                "a VO gives shares to its own groups, not to another VO"
            )
        if (
            self.provider_vo_id
            and self.consumer_group_id
            and self.consumer_group.vo_id != self.provider_vo_id
        ):
            errors.setdefault("consumer_group", []).append(
                f"group {self.consumer_group} does not belong to VO {self.provider_vo}"
            )
        if (
            self.burst_interval
            and self.epoch_interval
            and self.burst_interval > self.epoch_interval
        ):
            errors.setdefault("burst_interval", []).append(
                "the burst interval must not be longer than the epoch interval"
            )
        if not errors:
            same = UsagePolicy.objects.filter(
                resource=self.resource,
                provider_site_id=self.provider_site_id,
                provider_vo_id=self.provider_vo_id,
                consumer_vo_id=self.consumer_vo_id,
                consumer_group_id=self.consumer_group_id,
            ).exclude(pk=self.pk)
            if same.exists():
                errors.setdefault("resource", []).append(
                    f"{self.provider} already has a {self.resource} policy for {self.consumer}"
                )
        if errors:
            raise ValidationError(errors)


class Topology(models.Model):
    """A co-allocation resource graph (Takefusa et al. 2010): compute sites, domain exchange
    points and links with bandwidth and unit values, as the engine's topology document
    (``scheduler.coallocation.topology``), validated whenever it is saved."""

    name = models.SlugField(max_length=64, unique=True)
    description = models.CharField(max_length=200, blank=True)
    document = models.JSONField(
        help_text='{"sites": [{"name", "domain", "cpus", "value"}], "exchange_points": '
        '[{"name", "domains"}], "links": [{"between": [a, b], "bandwidth" (Gbps), "value"}]}'
    )

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "topologies"

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        from scheduler.engine import TopologyError, load_topology

        try:
            load_topology(self.document)
        except TopologyError as exc:
            raise ValidationError(
                {"document": [f"{path}: {msg}" for path, msg in exc.errors.items()]}
            ) from None

    def site_names(self) -> list[str]:
        return [s.get("name") for s in (self.document or {}).get("sites", [])]
