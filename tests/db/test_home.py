import pytest


@pytest.mark.django_db
def test_home_page_renders_in_chinese_by_default(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "掼蛋赛事管理" in response.content.decode()
