from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0004_sweep_executor"),
    ]

    operations = [
        migrations.AddField(
            model_name="experiment",
            name="claim",
            field=models.CharField(
                blank=True,
                help_text="the task message that took the run (a duplicate message never runs "
                "it twice)",
                max_length=64,
            ),
        ),
    ]
